// Converts a validated podsim::Workload message into the typed WorkloadSpec.
//
// Internal to src/config. Precondition: validate_workload() found no issues
// against the same pod; then nothing here throws for bad input.
#pragma once

#include <string>

#include "config/topology_spec.h"
#include "config/workload_spec.h"

namespace podsim {
class Workload;
}  // namespace podsim

namespace podsim::config::internal {

// Defaults are resolved: dtype unset -> bf16, repeat 0 -> 1; mesh dimension
// names become indices (kSliceDimIndex for "slice"); `after` names become
// indices of earlier operations.
WorkloadSpec to_workload_spec(const podsim::Workload& workload, const PodSpec& pod,
                              std::string source_file);

}  // namespace podsim::config::internal
