// Converts the serving step of a validated podsim::Workload (model + scenario
// + sharding) into the typed ServingSpec.
//
// Internal to src/config. Precondition: validate_workload() found no issues
// and the workload is of the second form; then nothing here throws.
#pragma once

#include "config/serving_spec.h"

namespace podsim {
class Workload;
}  // namespace podsim

namespace podsim::config::internal {

// Defaults are resolved: dtypes unset -> bf16; moe given -> MoeSpec with
// moe_layer_interval 0 -> 1; micro_batches 0 -> 1; tensor_collective unset ->
// all-reduce; kv_layout unset -> by heads; overlap_collectives unset -> true.
ServingSpec to_serving_spec(const podsim::Workload& workload);

}  // namespace podsim::config::internal
