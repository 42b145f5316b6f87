#include "engine/reachable.h"

#include <string>
#include <variant>
#include <vector>

#include "coll/plan.h"
#include "coll/reachable.h"
#include "topo/components.h"

namespace podsim::engine {
namespace {

std::string over(const std::vector<std::string>& axes) {
  std::string text;
  for (const std::string& a : axes)
    text += (text.empty() ? "" : ",") + a;
  return text;
}

std::string describe(const config::CollectiveSpec& c) {
  std::string text = coll::to_string(c.kind);
  if (c.kind != config::CollectiveKind::kSend)
    text += " over " + over(c.axes);
  return text;
}

}  // namespace

void require_routes(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const config::WorkloadSpec& workload) {
  if (!pod.has_failed_links())
    return;
  const topo::Components parts = topo::ici_components(pod);
  for (const config::OperationSpec& op : workload.operations) {
    if (const auto* c = std::get_if<config::CollectiveSpec>(&op.op))
      coll::require_reachable(pod, parts, mesh, *c,
                              "operation '" + op.name + "' (" + describe(*c) + ")");
  }
}

void require_routes(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const workload::Program& program) {
  if (!pod.has_failed_links())
    return;
  const topo::Components parts = topo::ici_components(pod);
  // A step repeats a few distinct collectives many times: check each once.
  std::vector<const config::CollectiveSpec*> seen;
  bool transfers = false;
  for (const workload::StageProgram& stage : program.stages) {
    for (const workload::Instruction& ins : stage.instructions) {
      transfers = transfers || std::holds_alternative<workload::StageTransfer>(ins.body);
      const auto* c = std::get_if<config::CollectiveSpec>(&ins.body);
      if (c == nullptr)
        continue;
      bool known = false;
      for (const config::CollectiveSpec* s : seen)
        known = known || (s->kind == c->kind && s->axes == c->axes && s->pairs == c->pairs);
      if (known)
        continue;
      seen.push_back(c);
      coll::require_reachable(pod, parts, mesh, *c,
                              "the serving step's " + describe(*c) + " ('" + ins.name + "')");
    }
  }
  if (transfers && !program.pipeline_axis.empty()) {
    // Stage s sends to the chip at its coordinates in stage s +- 1: the
    // pipeline axis's groups, member to next member, all joined.
    const std::vector<std::string> axis{program.pipeline_axis};
    for (const std::vector<topo::ChipId>& group : mesh.groups(axis))
      topo::require_reachable(pod, parts, group,
                              "the pipeline's stage transfers over " + program.pipeline_axis);
  }
}

}  // namespace podsim::engine
