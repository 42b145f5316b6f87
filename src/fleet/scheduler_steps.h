// The steps schedulers are built from (defined in fleet/scheduler.cc), shared
// by the schedulers there and fleet/deadline_scheduler.cc. Internal to the
// fleet layer.
#pragma once

#include <cstdint>

#include "fleet/replica_state.h"
#include "fleet/scheduler.h"

namespace podsim::fleet::internal {

// Decodes every running sequence past its prefill, reserving KV slots for
// the `lookahead` tokens it processes; preempts from the back when blocks
// run out. Returns the decodes planned.
uint32_t plan_decodes(ReplicaState& state, StepPlan& plan, uint32_t lookahead);
// Resumes swapped-out sequences at the front of the queue while the batch
// and the blocks allow; true when the front (if any) is a new request.
bool swap_in(ReplicaState& state, StepPlan& plan, const SchedulerLimits& limits);
// A step with no work although sequences run decodes them instead.
void decode_if_idle(ReplicaState& state, StepPlan& plan, uint32_t lookahead);
// Rejects waiting requests at the front that can never fit the pool; true
// when the front can be considered.
bool front_fits_at_all(ReplicaState& state, uint32_t lookahead);
// Plans the decodes (plan_decodes) and returns the prefill token budget
// they leave of limits.max_tokens_per_step.
uint64_t plan_decodes_and_budget(ReplicaState& state, StepPlan& plan,
                                 const SchedulerLimits& limits);
// Prompts already started, in admission order, in chunks within `budget`
// (lowered by what it plans). False when the step must stop there (the
// budget spent, or blocks short: decodes free them); the caller then
// returns decode_if_idle().
bool continue_prompts(ReplicaState& state, StepPlan& plan, uint64_t& budget);
// Admits the waiting front with its first chunk within `budget` (lowered),
// past `hit`, its prefix-cache hit (ReplicaState::front_hit()). False,
// admitting nothing, when its blocks are not free.
bool admit_front_chunk(ReplicaState& state, StepPlan& plan, uint32_t hit, uint64_t& budget);

}  // namespace podsim::fleet::internal
