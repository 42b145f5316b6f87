// The inputs part of podsim.Result (proto/podsim/result.proto): everything a
// run depended on, copied from the validated specs so that every row and
// JSON result stands alone and `podsim compare` can key rows by it.
#pragma once

#include <string>
#include <string_view>

#include "config/serving_spec.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "podsim/result.pb.h"

namespace podsim::report {

// The schema_version every result carries (docs/outputs.md lists the changes).
inline constexpr uint32_t kResultSchemaVersion = 14;

// podsim's version, "0.2.0".
std::string_view podsim_version();

// A new Result: schema and podsim version set, status ok, and every
// sub-message present so that JSON prints every key.
podsim::Result new_result();

// The hardware: per-dimension sizes, links, twists, chip, calibration, DCN.
void fill_topology_inputs(const config::PodSpec& pod, podsim::TopologyInputs& out);

// The workload's identity, form and mesh (axis sizes from `pod`), and for a
// serving workload the model, scenario and sharding into `serving`.
void fill_workload_inputs(const config::WorkloadSpec& workload, const config::PodSpec& pod,
                          podsim::Inputs& out);

// The model, scenario and sharding of a serving step.
void fill_serving_inputs(const config::ServingSpec& serving, podsim::ServingInputs& out);

// Names of the spec enums as the result writes them.
std::string_view dtype_name(config::DType t);
std::string_view phase_name(config::Phase p);
// "generation" for a whole generation, else the step's phase_name.
std::string_view scenario_phase_name(const config::ScenarioSpec& s);

}  // namespace podsim::report
