#include "cli/rank_timeout_option.h"

#include <cmath>
#include <string>

#include "cli/context.h"
#include "sweep/transport.h"

namespace podsim::cli {

namespace po = boost::program_options;

void add_rank_timeout_option(po::options_description& opts) {
  opts.add_options()("rank-timeout-seconds",
                     po::value<double>()->default_value(sweep::kDefaultRankTimeoutSeconds, "600"),
                     "under mpirun: end the job (exit 1) when a rank sends nothing, not even a "
                     "heartbeat, for this many seconds (0: wait forever)");
}

double rank_timeout_option(const po::variables_map& vm) {
  const double v = vm["rank-timeout-seconds"].as<double>();
  if (!std::isfinite(v) || v < 0 || v > 1e9)
    throw UsageError("--rank-timeout-seconds must be a number from 0 (wait forever) to 1e9, got " +
                     std::to_string(v));
  return v;
}

}  // namespace podsim::cli
