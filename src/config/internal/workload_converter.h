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
enum DType : int;
}  // namespace podsim

namespace podsim::config::internal {

// Defaults are resolved: dtype unset -> bf16 (a matmul's accumulator: fp32),
// repeat, batch and reduction outputs 0 -> 1, attention causal unset -> true,
// elementwise flops_per_element unset -> 1; mesh dimension
// names become indices (kSliceDimIndex for "slice"); `after` names become
// indices of earlier operations. A serving step becomes `serving`
// (serving_converter.h) and leaves `operations` empty.
WorkloadSpec to_workload_spec(const podsim::Workload& workload, const PodSpec& pod,
                              std::string source_file);

// BF16 for unset (and for values validation rejected).
DType to_dtype(podsim::DType d);

}  // namespace podsim::config::internal
