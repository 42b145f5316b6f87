#include "engine/model_caveats.h"

#include <cstdint>
#include <set>
#include <tuple>
#include <variant>

#include "coll/plan.h"
#include "engine/workload_mesh.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

// What lies under the mesh axes: the kinds of torus dimension of more than
// one chip (size, wrapped), and whether the DCN is among them.
struct Under {
  std::set<std::tuple<uint32_t, bool>> ici;
  bool dcn = false;
};

Under under(const config::PodSpec& pod, const config::WorkloadSpec& workload,
            const std::vector<std::string>& axes) {
  Under u;
  for (const std::string& axis : axes) {
    for (const config::MeshAxisDecl& decl : workload.mesh) {
      if (decl.name != axis)
        continue;
      for (const uint32_t d : decl.dims) {
        if (d == config::kSliceDimIndex) {
          u.dcn = u.dcn || pod.slices > 1;
        } else if (d < pod.torus.dims.size() && pod.torus.dims[d].size > 1) {
          u.ici.insert({pod.torus.dims[d].size, pod.torus.dims[d].wraparound});
        }
      }
    }
  }
  return u;
}

// Rings and lines (all-gather, reduce-scatter, all-reduce) run one share per
// torus dimension in rotated order, out of step when the dimensions differ
// (a DCN phase follows them, in step); a broadcast's pipelined chains fall
// out of step where a DCN stage joins ICI stages.
bool out_of_step(const config::PodSpec& pod, const config::WorkloadSpec& workload,
                 config::CollectiveKind kind, const std::vector<std::string>& axes) {
  const Under u = under(pod, workload, axes);
  switch (kind) {
    case config::CollectiveKind::kAllGather:
    case config::CollectiveKind::kReduceScatter:
    case config::CollectiveKind::kAllReduce:
      return u.ici.size() > 1;
    case config::CollectiveKind::kBroadcast:
      return u.dcn && !u.ici.empty();
    default:
      return false;  // all-to-all, permute, send: every transfer starts at once
  }
}

std::string listed(const std::vector<std::string>& axes) {
  std::string out;
  for (const std::string& a : axes)
    out += (out.empty() ? "" : ", ") + a;
  return out;
}

}  // namespace

std::vector<std::string> out_of_step_collectives(const topo::Pod& pod,
                                                 const config::WorkloadSpec& workload,
                                                 const workload::Program& program) {
  // The step's collectives as lowered (a layout may reduce over one axis at
  // a time), each kind and axes named once.
  std::vector<std::string> out;
  std::set<std::string> named;
  for (const workload::StageProgram& stage : program.stages) {
    for (const workload::Instruction& in : stage.instructions) {
      const auto* c = std::get_if<config::CollectiveSpec>(&in.body);
      if (c == nullptr || !out_of_step(pod.spec(), workload, c->kind, c->axes))
        continue;
      std::string label =
          std::string("the step's ") + coll::to_string(c->kind) + " over [" + listed(c->axes) + "]";
      if (named.insert(label).second)
        out.push_back(std::move(label));
    }
  }
  return out;
}

std::vector<std::string> out_of_step_collectives(const topo::Pod& pod,
                                                 const config::WorkloadSpec& workload) {
  if (workload.serving) {
    return out_of_step_collectives(
        pod, workload, workload::lower(*workload.serving, mesh_axes(workload_mesh(pod, workload))));
  }
  std::vector<std::string> out;
  for (const config::OperationSpec& op : workload.operations) {
    const auto* c = std::get_if<config::CollectiveSpec>(&op.op);
    if (c != nullptr && out_of_step(pod.spec(), workload, c->kind, c->axes))
      out.push_back("'" + op.name + "' over [" + listed(c->axes) + "]");
  }
  return out;
}

}  // namespace podsim::engine
