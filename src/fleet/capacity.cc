#include "fleet/capacity.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fleet/capacity_lookahead.h"
#include "fleet/serve.h"
#include "fleet/serve_cost.h"

namespace podsim::fleet {
namespace {

double at(const Percentiles& p, uint32_t percentile) {
  switch (percentile) {
    case 50:
      return p.p50;
    case 90:
      return p.p90;
    default:
      return p.p99;
  }
}

}  // namespace

bool meets(const ServeSummary& s, const CapacityOptions& options, CapacityRun& run) {
  run.ttft_s = at(s.ttft_s, options.percentile);
  run.tpot_s = at(s.tpot_s, options.percentile);
  run.tbt_s = at(s.tbt_s, options.percentile);
  run.completed = s.completed;
  // Requests shed by admission control count as rejected: a rate at which
  // the fleet sheds load does not serve it.
  run.rejected = s.rejected + s.shed;
  run.ok = s.completed > 0 && run.rejected == 0 &&
           (options.ttft_ms == 0 || run.ttft_s * 1e3 <= options.ttft_ms) &&
           (options.tpot_ms == 0 || run.tpot_s * 1e3 <= options.tpot_ms) &&
           (options.tbt_ms == 0 || run.tbt_s * 1e3 <= options.tbt_ms);
  return run.ok;
}

CapacityResult search_capacity(double start, const std::function<ServeSummary(double)>& measure,
                               const CapacityOptions& options) {
  // One probe at a time: only the probes on the search's path are measured,
  // so an error a run raises comes straight from `measure`.
  return search_capacity_batched(
      start,
      [&](const std::vector<double>& rates) {
        std::vector<Probe> probes(rates.size());
        for (size_t k = 0; k < rates.size(); ++k) {
          probes[k].run.rate_per_s = rates[k];
          meets(measure(rates[k]), options, probes[k].run);
        }
        return probes;
      },
      options, 1);
}

void measure_cost(const config::ServeSpec& spec, const ServeSummary& s,
                  const CapacityOptions& options, CapacityRun& run) {
  run.energy_modelled = s.energy_modelled;
  run.j_per_output_token = s.j_per_output_token;
  run.priced = options.pricing != nullptr;
  if (options.pricing)
    run.usd_per_m_output_tokens = serve_cost(spec, s, *options.pricing).usd_per_m_output_tokens;
}

double nominal_rate(const config::ServeSpec& spec) {
  const config::ArrivalSpec& a = spec.arrivals;
  switch (a.kind) {
    case config::ArrivalKind::kClosedLoop:
      throw std::invalid_argument(
          "a closed loop has no arrival rate to search: its rate follows from its users");
    case config::ArrivalKind::kTrace: {
      if (a.trace.size() < 2 || a.trace.back().arrival <= a.trace.front().arrival)
        throw std::invalid_argument("a trace needs two arrival times or more to have a rate");
      return static_cast<double>(a.trace.size() - 1) /
             (a.trace.back().arrival - a.trace.front().arrival).to_s();
    }
    case config::ArrivalKind::kConversations:
      return a.conversations.rate_per_s;  // new conversations per second
    case config::ArrivalKind::kPoisson:
    case config::ArrivalKind::kGamma:
      break;
  }
  return a.rate_per_s;
}

config::ServeSpec at_rate(const config::ServeSpec& spec, double rate) {
  config::ServeSpec s = spec;
  if (s.arrivals.kind == config::ArrivalKind::kTrace) {
    const double scale = nominal_rate(spec) / rate;  // times multiplied by this
    for (config::TraceRequest& r : s.arrivals.trace)
      r.arrival = sim::Time::ps(
          static_cast<int64_t>(std::llround(static_cast<double>(r.arrival.count_ps()) * scale)));
  } else if (s.arrivals.kind == config::ArrivalKind::kConversations) {
    s.arrivals.conversations.rate_per_s = rate;
  } else {
    s.arrivals.rate_per_s = rate;
  }
  return s;
}

CapacityOptions search_options(const config::ServeSpec& spec, const CapacityOptions& options) {
  CapacityOptions o = options;
  if (spec.arrivals.kind == config::ArrivalKind::kTrace) {
    // The slowest replay whose times stay within 50 days.
    const double span_s =
        (spec.arrivals.trace.back().arrival - spec.arrivals.trace.front().arrival).to_s();
    o.min_rate = std::max(o.min_rate, nominal_rate(spec) * span_s / (50.0 * 86400));
  } else if (spec.arrivals.kind != config::ArrivalKind::kClosedLoop &&
             spec.max_requests >= config::kMaxServeRequests && spec.duration < sim::Time::max()) {
    // Requests grow with the rate: bound the runs, not just the rates.
    const double duration_s = spec.duration.to_s();
    if (duration_s > 0)
      o.max_rate =
          std::min(o.max_rate, std::max(nominal_rate(spec), kMaxProbeRequests / duration_s));
  }
  return o;
}

CapacityResult find_capacity(const config::ServeSpec& spec, const CapacityOptions& options) {
  const double start = nominal_rate(spec);
  Server server(spec, options.limits);
  return search_capacity(
      start, [&](double rate) { return server.run(at_rate(spec, rate)).summary; },
      search_options(spec, options));
}

namespace {

// Whether `a` is better than `b` (both meet the objectives) by `minimise`,
// the fewest chips breaking ties; equal verdicts keep the earlier.
bool better_verdict(const ConfigVerdict& a, const ConfigVerdict& b, Minimise minimise) {
  double x = 0;
  double y = 0;
  if (minimise == Minimise::kCost) {
    x = a.run.usd_per_m_output_tokens;
    y = b.run.usd_per_m_output_tokens;
  } else if (minimise == Minimise::kEnergy) {
    x = a.run.j_per_output_token;
    y = b.run.j_per_output_token;
  }
  if (x != y)
    return x < y;
  return a.chips < b.chips;
}

}  // namespace

void add_verdict(FewestChips& out, const config::ServeSpec& spec, const CapacityRun& run,
                 Minimise minimise) {
  ConfigVerdict v;
  v.name = spec.name;
  for (const config::ServeReplicaSpec& r : spec.replicas)
    v.chips += static_cast<uint32_t>(r.pod.chip_count()) * r.count;
  v.run = run;
  out.configs.push_back(v);
  const int i = static_cast<int>(out.configs.size()) - 1;
  if (v.run.ok &&
      (out.best < 0 || better_verdict(v, out.configs[static_cast<size_t>(out.best)], minimise)))
    out.best = i;
}

FewestChips fewest_chips(const std::vector<config::ServeSpec>& specs, double rate,
                         const CapacityOptions& options) {
  FewestChips out;
  for (const config::ServeSpec& spec : specs) {
    CapacityRun run;
    run.rate_per_s = rate;
    const ServeSummary s = serve(at_rate(spec, rate), false, options.limits).summary;
    meets(s, options, run);
    measure_cost(spec, s, options, run);
    add_verdict(out, spec, run, options.minimise);
  }
  return out;
}

}  // namespace podsim::fleet
