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
