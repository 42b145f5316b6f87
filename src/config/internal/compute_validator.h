// The rules one compute operation of an operation list must satisfy: exactly
// one op set, every size its cost formula divides or multiplies by at least 1,
// enums set to known values, attention heads a multiple of kv_heads, a causal
// attention's queries no more than its keys, a reduction's outputs no more
// than its inputs (docs/inputs.md lists them). These are the preconditions
// chip/ops.h asserts, checked here once with a field path.
//
// Internal to src/config: it reads the generated podsim::Compute message.
#pragma once

#include "config/internal/issue_list.h"

namespace podsim {
class Compute;
}  // namespace podsim

namespace podsim::config::internal {

// Adds one issue per broken rule, under `path` (operations[i].compute). O(1).
void validate_compute(const podsim::Compute& compute, const FieldPath& path, IssueList& issues);

}  // namespace podsim::config::internal
