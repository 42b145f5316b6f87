#include "workload/program.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::workload {

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::kEmbedding:
      return "embedding";
    case OpClass::kNorm:
      return "norm";
    case OpClass::kAttentionProjection:
      return "attention_projection";
    case OpClass::kAttention:
      return "attention";
    case OpClass::kFfn:
      return "ffn";
    case OpClass::kMoeRouter:
      return "moe_router";
    case OpClass::kExpertFfn:
      return "expert_ffn";
    case OpClass::kLmHead:
      return "lm_head";
    case OpClass::kElementwise:
      return "elementwise";
    case OpClass::kFusedProjection:
      return "fused_projection";
    case OpClass::kCollective:
      return "collective";
    case OpClass::kStageTransfer:
      return "stage_transfer";
  }
  return "unknown";
}

bool stage_transfer_into(const Program& program, size_t stage, const Instruction& receiver,
                         size_t& from_stage, size_t& transfer) {
  if (receiver.recv_from < 0) {
    return false;
  }
  for (const int dir : {+1, -1}) {
    const int64_t from = static_cast<int64_t>(stage) - dir;
    if (from < 0 || from >= static_cast<int64_t>(program.stages.size())) {
      continue;
    }
    const auto& sp = program.stages[static_cast<size_t>(from)].instructions;
    const auto t = static_cast<size_t>(receiver.recv_from);
    if (t < sp.size()) {
      const auto* st = std::get_if<StageTransfer>(&sp[t].body);
      if (st != nullptr && st->direction == dir) {
        from_stage = static_cast<size_t>(from);
        transfer = t;
        return true;
      }
    }
  }
  return false;
}

uint32_t MeshAxes::size(std::string_view name) const {
  if (name.empty())
    return 1;
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::out_of_range("unknown mesh axis '" + std::string(name) + "'");
  return sizes.at(static_cast<size_t>(it - names.begin()));
}

uint64_t MeshAxes::product(const std::vector<std::string>& axes) const {
  uint64_t p = 1;
  for (const std::string& a : axes)
    p *= size(a);
  return p;
}

}  // namespace podsim::workload
