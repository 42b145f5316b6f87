#include "cli/limit_options.h"

#include <cmath>
#include <string>

#include "cli/context.h"
#include "report/format.h"

namespace podsim::cli {

namespace po = boost::program_options;

void add_limit_options(po::options_description& opts) {
  const sim::WorkLimits d = sim::kDefaultWorkLimits;
  opts.add_options()(
      "max-events", po::value<double>()->default_value(static_cast<double>(d.max_events), "2e10"),
      "stop a run after this many simulated events (a sweep: summed over its points; 0: no "
      "limit); exit 1, no output")(
      "max-memory-mb",
      po::value<double>()->default_value(static_cast<double>(d.max_memory_bytes >> 20), "16384"),
      "stop a run once podsim's resident memory passes this many MiB (0: no limit)")(
      "max-wall-seconds", po::value<double>()->default_value(d.max_wall_seconds, "14400"),
      "stop a run (a sweep: the whole sweep) after this many seconds of wall time (0: no "
      "limit)");
}

sim::WorkLimits limit_options(const po::variables_map& vm) {
  const auto value = [&vm](const char* name, double max) {
    const double v = vm[name].as<double>();
    if (!std::isfinite(v) || v < 0 || v > max) {
      // Shortest form: 1e300 is "1e+300", not 301 digits and six decimals.
      throw UsageError(std::string("--") + name + " must be a number from 0 (no limit) to " +
                       std::to_string(static_cast<uint64_t>(max)) + ", got " +
                       (std::isfinite(v) ? report::format_double(v)
                        : std::isnan(v)  ? std::string("nan")
                                         : std::string(v > 0 ? "inf" : "-inf")));
    }
    return v;
  };
  sim::WorkLimits l;
  l.max_events = static_cast<uint64_t>(value("max-events", 1e18));
  l.max_memory_bytes = static_cast<uint64_t>(value("max-memory-mb", 1e9)) << 20;
  l.max_wall_seconds = value("max-wall-seconds", 1e9);
  return l;
}

void warn_if_long(std::ostream& err, uint64_t min_events, const sim::WorkLimits& limits) {
  if (min_events < kLongRunEvents) {
    return;
  }
  err << "podsim: note: this run is estimated at " << min_events
      << " events or more (the largest shipped workload runs 14 million); it stops at ";
  if (limits.max_events == 0 && limits.max_wall_seconds == 0) {
    err << "no limit (--max-events 0 --max-wall-seconds 0)\n";
    return;
  }
  if (limits.max_events != 0) {
    err << limits.max_events << " events (--max-events)";
  }
  if (limits.max_wall_seconds != 0) {
    err << (limits.max_events != 0 ? " or " : "") << limits.max_wall_seconds
        << " s of wall time (--max-wall-seconds)";
  }
  err << ", whichever comes first\n";
}

}  // namespace podsim::cli
