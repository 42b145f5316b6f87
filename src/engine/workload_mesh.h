// The workload's device mesh laid over the pod (the loader has already checked
// that every axis fits it).
#pragma once

#include "config/workload_spec.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {

topo::DeviceMesh workload_mesh(const topo::Pod& pod, const config::WorkloadSpec& workload);

// The mesh's axis names and sizes, in its order: what workload::lower()
// shards over (the torus under them is the network's business).
workload::MeshAxes mesh_axes(const topo::DeviceMesh& mesh);

}  // namespace podsim::engine
