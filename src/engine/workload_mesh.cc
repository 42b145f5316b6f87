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

workload::MeshAxes mesh_axes(const topo::Pod& pod, const topo::DeviceMesh& mesh) {
  workload::MeshAxes axes;
  for (const auto& a : mesh.axes()) {
    axes.names.push_back(a.name);
    axes.sizes.push_back(mesh.axis_size(a.name));
    const bool one_dim = a.dims.size() == 1 && a.dims[0] != topo::kSliceDim;
    axes.rings.push_back(one_dim && pod.wraparound(a.dims[0]) && !pod.twisted(a.dims[0]));
  }
  return axes;
}

}  // namespace podsim::engine
