// Capacity (`podsim capacity`, docs/serving.md "Capacity"): the highest
// arrival rate at which a configuration still meets its SLOs, by bisection
// over serve runs.
//
// A run meets the target when no request was rejected and the chosen
// percentile of TTFT, of TPOT and of the gaps between tokens (TBT) are
// within their objectives (0: none). The
// search starts at the spec's own rate, doubles or halves until the target
// flips, then bisects until the bracket is narrower than the tolerance
// (relative to its top). Going up it stops, unbracketed, at max_rate:
// never above the serve files' own bound on rates (kMaxArrivalRatePerS),
// nor, for a run bounded by duration_s alone, above the rate whose run would
// hold kMaxProbeRequests requests (search_options), so an objective every
// rate meets (a TPOT bound that batching keeps) ends the search instead of
// doubling into runs of millions of requests. Every run uses the spec's seed, so the search is
// deterministic; latency need not be monotone in the rate for one seed,
// so the answer is a rate that meets the target with a higher one (within
// the tolerance) that does not.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/pricing_spec.h"
#include "config/serve_spec.h"
#include "fleet/summary.h"
#include "sim/work_budget.h"

namespace podsim::fleet {

// What --target-rate picks among the configurations that meet the
// objectives: the fewest chips, the lowest $ per million output tokens
// (needs a pricing file), or the fewest joules per output token (needs every
// configuration's power model).
enum class Minimise { kChips, kCost, kEnergy };

struct CapacityOptions {
  double ttft_ms = 0;  // 0: none
  double tpot_ms = 0;  // 0: none
  // 0: none; else the percentile of every gap between tokens (the serve
  // summary's tbt_s, Sarathi-Serve's P99 TBT criterion) must be within it.
  double tbt_ms = 0;
  uint32_t percentile = 99;  // 50, 90 or 99
  double relative_tolerance = 0.02;
  uint32_t max_runs = 40;
  // No rate below this is tried (a trace slowed too far would outlast the
  // clock); 0: start / 2^30.
  double min_rate = 0;
  // No rate above this is tried (search_options lowers it for a run bounded
  // by its duration alone).
  double max_rate = config::kMaxArrivalRatePerS;
  // Each serve run's limits (fleet/serve.h, sim/work_budget.h).
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
  // When set, every run is priced (CapacityRun::usd_per_m_output_tokens);
  // fleet::require_pricing() must have passed for every spec run.
  std::shared_ptr<const config::PricingSpec> pricing;
  Minimise minimise = Minimise::kChips;
  // Called on the process that reports (rank 0) as each serve run's result
  // comes in, in the order merged: a progress report's heartbeat, with no
  // effect on the search. Empty: none.
  std::function<void()> on_run;
};

struct CapacityRun {
  double rate_per_s = 0;
  double ttft_s = 0;  // at the percentile
  double tpot_s = 0;
  double tbt_s = 0;  // of every gap between tokens (within GapHistogram::kRelativeError)
  uint64_t completed = 0;
  uint64_t rejected = 0;
  bool ok = false;
  // Filled by measure_cost(): the run's energy per output token (when every
  // replica's is modelled) and, with a pricing file, its cost.
  bool energy_modelled = false;
  double j_per_output_token = 0;
  bool priced = false;
  double usd_per_m_output_tokens = 0;
};

struct CapacityResult {
  double rate_per_s = 0;          // the highest rate found to meet the target; 0: none
  bool bracketed = false;         // a failing rate within the tolerance above it was found
  std::vector<CapacityRun> runs;  // in the order run
};

bool meets(const ServeSummary& s, const CapacityOptions& options, CapacityRun& run);
// Fills `run`'s energy and (with options.pricing) cost figures from the
// summary `s` of a run of `spec`'s replicas (fleet/serve_cost.h).
void measure_cost(const config::ServeSpec& spec, const ServeSummary& s,
                  const CapacityOptions& options, CapacityRun& run);

// The search over `measure(rate)` (a serve run at that rate), from `start`.
CapacityResult search_capacity(double start, const std::function<ServeSummary(double)>& measure,
                               const CapacityOptions& options);

// The spec's arrival rate: Poisson and gamma their rate, a trace its
// requests over its span. Throws std::invalid_argument for a closed loop
// (its rate follows from its users and their service).
double nominal_rate(const config::ServeSpec& spec);
// The spec with its arrivals at `rate`: a trace's times scaled.
config::ServeSpec at_rate(const config::ServeSpec& spec, double rate);

// search_capacity over serve runs of `spec` (one Server: the step-time memo
// is shared by every run).
CapacityResult find_capacity(const config::ServeSpec& spec, const CapacityOptions& options);
// The most requests an upward probe of a run bounded by duration_s alone
// may hold (rate x duration_s): a few minutes of fleet simulation.
inline constexpr double kMaxProbeRequests = 1e6;

// The options find_capacity searches with: for a trace, no rate so slow
// that its replay would outlast 50 days; for synthetic arrivals ended by
// duration_s alone (no requests), no rate above kMaxProbeRequests /
// duration_s (but never below the spec's own rate).
CapacityOptions search_options(const config::ServeSpec& spec, const CapacityOptions& options);

// Given a target rate: one serve run of each configuration at that rate,
// and which meets the objectives with the fewest chips, the lowest $ per
// million output tokens or the fewest joules per output token
// (options.minimise; ties: the fewest chips, then the first).
struct ConfigVerdict {
  std::string name;
  uint32_t chips = 0;  // over every replica copy
  CapacityRun run;
};
struct FewestChips {
  std::vector<ConfigVerdict> configs;  // in the order given
  int best = -1;                       // index of the best that meets them; -1: none
};
FewestChips fewest_chips(const std::vector<config::ServeSpec>& specs, double rate,
                         const CapacityOptions& options);
// Appends `spec`'s verdict from its `run` to `out`, the best (by `minimise`)
// updated.
void add_verdict(FewestChips& out, const config::ServeSpec& spec, const CapacityRun& run,
                 Minimise minimise = Minimise::kChips);

}  // namespace podsim::fleet
