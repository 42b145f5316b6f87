// The workload's device mesh laid over the pod (the loader has already checked
// that every axis fits it).
#pragma once

#include "config/workload_spec.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::engine {

topo::DeviceMesh workload_mesh(const topo::Pod& pod, const config::WorkloadSpec& workload);

}  // namespace podsim::engine
