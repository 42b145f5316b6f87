// --max-events, --max-memory-mb and --max-wall-seconds on every command that
// simulates (run, sweep, search): limits on one run's work
// (sim/work_budget.h). A run past one stops with exit 1, a message naming
// the limit, and no output file; 0 turns a limit off. The defaults are
// sim::kDefaultWorkLimits, far above every shipped workload.
#pragma once

#include <boost/program_options.hpp>

#include "sim/work_budget.h"

namespace podsim::cli {

void add_limit_options(boost::program_options::options_description& opts);

// The limits given; throws UsageError for a negative or non-finite value.
sim::WorkLimits limit_options(const boost::program_options::variables_map& vm);

}  // namespace podsim::cli
