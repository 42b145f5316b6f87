// --max-events, --max-memory-mb and --max-wall-seconds on every command that
// simulates (run, sweep, search): limits on one run's work
// (sim/work_budget.h). A run past one stops with exit 1, a message naming
// the limit, and no output file; 0 turns a limit off. The defaults are
// sim::kDefaultWorkLimits, far above every shipped workload.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <ostream>

#include "sim/work_budget.h"

namespace podsim::cli {

void add_limit_options(boost::program_options::options_description& opts);

// The limits given; throws UsageError for a negative or non-finite value.
sim::WorkLimits limit_options(const boost::program_options::variables_map& vm);

// A run estimated at this many events or more is announced before it starts:
// 7 times the largest shipped workload's 14 M (LLaMA-3-405B decode on the
// 4096-chip v4 pod, sim/work_budget.h), so no shipped run meets it, and
// about 15 s of one core at the 6-7 M events/s an operation list's ring
// collectives play at (measured: 3 operations of `repeat: 10000` on a v5e
// 4x4, 1.45 M events in 0.24 s). At 10^9 (before issue 27) three
// operations of `repeat: 1000000` ran for minutes without a word.
inline constexpr uint64_t kLongRunEvents = 100'000'000;

// Writes a note to `err` when `min_events` (a run's estimate before it
// starts, study::RunOptions::on_estimate) reaches kLongRunEvents: the
// estimate and the limits that will stop the run.
void warn_if_long(std::ostream& err, uint64_t min_events, const sim::WorkLimits& limits);

}  // namespace podsim::cli
