// The rules one compute operation of an operation list must satisfy: exactly
// one op set, every size its cost formula divides or multiplies by at least 1,
// enums set to known values, attention heads a multiple of kv_heads, a causal
// attention's queries no more than its keys, a reduction's outputs no more
// than its inputs (docs/inputs.md lists them). These are the preconditions
// chip/ops.h asserts, checked here once with a field path.
//
// Internal to src/config: it reads the generated podsim::Compute message.
#pragma once

#include <cstdint>

#include "config/internal/issue_list.h"

namespace podsim {
class Compute;
}  // namespace podsim

namespace podsim::config::internal {

// Size limits (docs/inputs.md, "Limits"): no operand of one operation holds
// more than 2^48 elements (256 Ti; a petabyte in fp32, far past any chip's
// memory), and no byte count is above 2^56 (64 PiB). Within them every
// product chip/ops.cc forms fits 64 bits with room to spare.
inline constexpr uint64_t kMaxOperandElements = uint64_t{1} << 48;
inline constexpr uint64_t kMaxOperationBytes = uint64_t{1} << 56;

// Adds one issue per broken rule, under `path` (operations[i].compute). O(1).
void validate_compute(const podsim::Compute& compute, const FieldPath& path, IssueList& issues);

}  // namespace podsim::config::internal
