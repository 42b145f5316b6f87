// --rank-timeout-seconds on the commands that run across MPI ranks (sweep,
// search, capacity): how long rank 0 waits for a rank that sends nothing,
// neither a result nor a heartbeat (sweep/transport.h), before it ends the
// job with exit 1 and a message naming the rank; in search and capacity,
// also how long a rank waits for rank 0's merged results of a round while
// rank 0 is silent. Ranks send a heartbeat every quarter of it while they
// compute or wait, so a long point does not trip it; a stopped, hung or
// unreachable rank does. Ignored in one process.
#pragma once

#include <boost/program_options.hpp>

namespace podsim::cli {

// The default, sweep::kDefaultRankTimeoutSeconds, is 10 minutes: far above a
// heartbeat's delay on a loaded machine (a quarter of it, 150 s, between
// heartbeats), short enough that a job whose rank was stopped ends the same
// hour.

void add_rank_timeout_option(boost::program_options::options_description& opts);

// The timeout given, in seconds (0: wait forever); throws UsageError for a
// negative or non-finite value.
double rank_timeout_option(const boost::program_options::variables_map& vm);

}  // namespace podsim::cli
