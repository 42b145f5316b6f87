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

workload::MeshAxes mesh_axes(const topo::DeviceMesh& mesh) {
  workload::MeshAxes axes;
  for (const auto& a : mesh.axes()) {
    axes.names.push_back(a.name);
    axes.sizes.push_back(mesh.axis_size(a.name));
  }
  return axes;
}

}  // namespace podsim::engine
