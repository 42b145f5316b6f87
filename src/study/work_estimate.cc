#include "study/work_estimate.h"

#include <algorithm>
#include <variant>

#include "engine/op_list_loops.h"
#include "sim/saturating.h"

namespace podsim::study {
namespace {

using sim::saturating_add;
using sim::saturating_mul;

constexpr uint64_t kSpanBytes = 16;  // engine::Span, one per run of an instruction

}  // namespace

WorkEstimate estimate_op_list(const config::WorkloadSpec& workload, const topo::DeviceMesh& mesh,
                              const net::Options& network) {
  WorkEstimate e;
  uint64_t mesh_chips = 1;
  for (const topo::MeshAxisSpec& axis : mesh.axes()) {
    mesh_chips = saturating_mul(mesh_chips, mesh.axis_size(axis.name));
  }
  const uint64_t receivers = std::max<uint64_t>(1, mesh_chips / 2);
  // An operation in a loop (an imported HLO while) runs once per iteration.
  const engine::OpListLoops loops(workload);
  for (size_t i = 0; i < workload.operations.size(); ++i) {
    const config::OperationSpec& op = workload.operations[i];
    const uint64_t runs = saturating_mul(op.repeat, loops.passes(i));
    uint64_t per_run = 1;
    if (const auto* c = std::get_if<config::CollectiveSpec>(&op.op)) {
      const uint64_t chips = c->kind == config::CollectiveKind::kSend
                                 ? std::max<size_t>(1, c->pairs.size())
                                 : receivers;
      uint64_t messages = 1;
      if (network.model == net::Model::kPacket && network.packet_bytes > 0) {
        const uint64_t half = c->bytes / 2;
        messages = std::max<uint64_t>(1, (half + network.packet_bytes - 1) / network.packet_bytes);
      }
      per_run = saturating_mul(chips, messages);
    }
    e.events = saturating_add(e.events, saturating_mul(runs, per_run));
    e.memory_bytes = saturating_add(e.memory_bytes, saturating_mul(runs, kSpanBytes));
  }
  return e;
}

WorkEstimate estimate_step(const workload::Program& program) {
  WorkEstimate e;
  for (const workload::StageProgram& stage : program.stages) {
    e.events = saturating_add(e.events, stage.instructions.size());
  }
  e.memory_bytes = saturating_mul(e.events, kSpanBytes);
  return e;
}

}  // namespace podsim::study
