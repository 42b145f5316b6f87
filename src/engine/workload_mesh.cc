#include "engine/workload_mesh.h"

namespace podsim::engine {

static_assert(config::kSliceDimIndex == topo::kSliceDim,
              "config and topo must agree on the slice dimension index");

topo::DeviceMesh workload_mesh(const topo::Pod& pod, const config::WorkloadSpec& workload) {
  std::vector<topo::MeshAxisSpec> axes;
  for (const auto& a : workload.mesh) {
    axes.push_back({a.name, a.dims});
  }
  return topo::DeviceMesh(pod, std::move(axes));
}

}  // namespace podsim::engine
