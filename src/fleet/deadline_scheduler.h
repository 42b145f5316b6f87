// The DEADLINE scheduler (docs/serving.md, "SLO-aware scheduling"): chunked
// prefill (decodes first, then prompts in chunks within the token budget)
// with three differences.
//  - Earliest deadline first: new requests wait in order of their TTFT
//    deadline (arrival + their class's objective), not of arrival
//    (ReplicaState::order_by_deadline); preempted and swapped sequences
//    still resume first.
//  - Decode protection: when a running sequence has a TPOT objective, the
//    step's prefill budget is halved (down to one KV block) until the step,
//    as the replica's step timer costs it, fits the tightest such
//    objective, so new prompts do not stretch the running requests' steps
//    past it.
//  - Admission control: a new request reaching the front of the queue is
//    predicted to produce its first token at now + ceil(prompt / budget) x
//    (the time of a step of the current decodes and a full prefill chunk);
//    if that is past its deadline, REJECT_LATE sheds it (it is never
//    served) and DEFER_LATE moves it behind every request that can still
//    meet its deadline (it is served when nothing else waits).
// Cost: one or a few step-timer lookups per step (memoised), O(batch) per
// step as the other schedulers, O(1) per shed or deferred request.
#pragma once

#include <memory>

#include "fleet/scheduler.h"

namespace podsim::fleet {

std::unique_ptr<Scheduler> make_deadline_scheduler(SchedulerLimits limits,
                                                   const SchedulerContext& context);

}  // namespace podsim::fleet
