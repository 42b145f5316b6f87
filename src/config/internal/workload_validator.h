// Every rule a workload must satisfy against the pod it runs on, checked once,
// in one pass that reports all violations (docs/inputs.md lists them): the
// form (operations, or model + scenario + sharding), the mesh, then the rules
// of whichever form is given (collective_validator.h for operations;
// model_validator.h, sharding_validator.h and shape_validator.h for a
// serving step).
//
// Internal to src/config: it reads the generated podsim::Workload message.
// After validate_workload() returns no issues, to_workload_spec() cannot fail.
#pragma once

#include <cstdint>
#include <vector>

#include "config/internal/issue_list.h"
#include "config/topology_spec.h"

namespace podsim {
class Workload;
}  // namespace podsim

namespace podsim::config::internal {

// The most runs one operation may ask for: a typo guard (a benchmark loop of
// a million collectives is already far beyond any use).
inline constexpr uint32_t kMaxRepeat = 1'000'000;

std::vector<FieldIssue> validate_workload(const podsim::Workload& workload, const PodSpec& pod);

}  // namespace podsim::config::internal
