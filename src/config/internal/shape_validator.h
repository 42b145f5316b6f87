// The shape rules of a serving step: every dimension the sharding splits must
// divide evenly over the chips that split it (heads, widths and vocabulary
// over the tensor axes as the layout splits them, layers over the pipeline
// stages, the batch over the replicas and micro-batches, sequences and tokens
// over the chips that split them, experts over the expert axes). Never
// rounded: an uneven split would silently change the simulated step. The
// rules are those of the lowering's schedules (src/workload/README.md), so a
// step that loads also lowers (docs/inputs.md lists them).
//
// Internal to src/config: it reads the generated podsim::Workload message.
#pragma once

#include "config/internal/issue_list.h"
#include "config/internal/sharding_validator.h"

namespace podsim {
class Workload;
}  // namespace podsim

namespace podsim::config::internal {

// Adds one issue per dimension that does not divide. Skips values that are
// 0 and groups that are not valid (both reported by the other rules). O(1).
void validate_shapes(const podsim::Workload& workload, const ShardingGroups& groups,
                     IssueList& issues);

}  // namespace podsim::config::internal
