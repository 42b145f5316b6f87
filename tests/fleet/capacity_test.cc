// Capacity search (fleet/capacity.h): bisection on a known threshold, and on
// the shipped Azure example end to end.
#include "fleet/capacity.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/context.h"
#include "config/serve_loader.h"
#include "fleet/serve.h"

namespace podsim::fleet {
namespace capacity_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// p99 TTFT of 1 s exactly at `knee` requests/s, rising with the rate.
ServeSummary fake(double rate, double knee) {
  ServeSummary s;
  s.completed = 100;
  s.ttft_s.p99 = rate / knee;
  s.tpot_s.p99 = 0.01;
  return s;
}

TEST(CapacitySearch, FindsTheKneeWithinTheTolerance) {
  CapacityOptions o;
  o.ttft_ms = 1000;
  for (double start : {0.01, 1.0, 7.3, 1000.0}) {
    const CapacityResult r = search_capacity(
        start, [](double rate) { return fake(rate, 7.3); }, o);
    EXPECT_TRUE(r.bracketed) << start;
    EXPECT_LE(r.rate_per_s, 7.3) << start;
    EXPECT_GE(r.rate_per_s, 7.3 * (1 - o.relative_tolerance)) << start;
    EXPECT_LE(r.runs.size(), o.max_runs);
    for (const CapacityRun& run : r.runs)
      EXPECT_EQ(run.ok, run.rate_per_s <= 7.3) << run.rate_per_s;
  }
}

TEST(CapacitySearch, ReportsNoRateWhenNoneMeetsTheTarget) {
  CapacityOptions o;
  o.tpot_ms = 5;  // the fake's p99 TPOT is 10 ms at every rate
  const CapacityResult r = search_capacity(
      1, [](double rate) { return fake(rate, 7.3); }, o);
  EXPECT_EQ(r.rate_per_s, 0);
  EXPECT_FALSE(r.bracketed);
  CapacityOptions rejecting;
  rejecting.ttft_ms = 1000;
  const CapacityResult q = search_capacity(
      1,
      [](double rate) {
        ServeSummary s = fake(rate, 7.3);
        s.rejected = 1;  // a rejected request never meets the target
        return s;
      },
      rejecting);
  EXPECT_EQ(q.rate_per_s, 0);
}

TEST(CapacitySearch, ScalesATraceToTheRate) {
  config::ServeSpec spec;
  spec.arrivals.kind = config::ArrivalKind::kTrace;
  spec.arrivals.trace = {{sim::Time::s(0), 1, 1}, {sim::Time::s(1), 1, 1}, {sim::Time::s(4), 1, 1}};
  EXPECT_DOUBLE_EQ(nominal_rate(spec), 0.5);
  const config::ServeSpec fast = at_rate(spec, 2);
  EXPECT_EQ(fast.arrivals.trace[1].arrival, sim::Time::ms(250));
  EXPECT_EQ(fast.arrivals.trace[2].arrival, sim::Time::s(1));
  spec.arrivals.kind = config::ArrivalKind::kClosedLoop;
  EXPECT_THROW(nominal_rate(spec), std::invalid_argument);
}

TEST(CapacitySearch, AnObjectiveEveryRateMeetsStopsAtTheRateBound) {
  // TPOT alone, met at any rate (batching bounds it): the search used to
  // double up to 2^30 x the start (10^9/s, runs of 2e7 requests). It stops,
  // unbracketed, at max_rate.
  CapacityOptions o;
  o.tpot_ms = 50;
  o.max_rate = 1000;
  const CapacityResult r = search_capacity(
      10, [](double rate) { return fake(rate, 1e300); }, o);
  EXPECT_FALSE(r.bracketed);
  for (const CapacityRun& run : r.runs)
    EXPECT_LE(run.rate_per_s, 1000) << run.rate_per_s;
  EXPECT_EQ(r.rate_per_s, 640);  // 10 x 2^6; 1280 would pass the bound
}

TEST(CapacitySearch, ARunEndedByItsDurationAloneIsBoundedInRequests) {
  config::ServeSpec spec;
  spec.arrivals.kind = config::ArrivalKind::kPoisson;
  spec.arrivals.rate_per_s = 10;
  spec.duration = sim::Time::s(60);
  // Up to kMaxProbeRequests requests a probe: 10^6 / 60 s.
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, kMaxProbeRequests / 60);
  // The file's own rate is always allowed.
  spec.arrivals.rate_per_s = 1e5;
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, 1e5);
  // A request count bounds every probe already; the rate bound is the files'.
  spec.max_requests = 1000;
  EXPECT_DOUBLE_EQ(search_options(spec, {}).max_rate, config::kMaxArrivalRatePerS);
}

TEST(Capacity, OnTheAzureExampleTheRateFoundMeetsItsSlo) {
  const config::ServeSpec spec = config::load_serve_file(
      source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto");
  CapacityOptions o;
  o.ttft_ms = spec.slo.ttft_ms;
  o.tpot_ms = spec.slo.tpot_ms;
  const CapacityResult r = find_capacity(spec, o);
  ASSERT_GT(r.rate_per_s, 0);
  EXPECT_TRUE(r.bracketed);
  const ServeSummary at = serve(at_rate(spec, r.rate_per_s)).summary;
  EXPECT_LE(at.ttft_s.p99 * 1e3, o.ttft_ms);
  EXPECT_LE(at.tpot_s.p99 * 1e3, o.tpot_ms);

  std::ostringstream out;
  std::ostringstream err;
  const std::string file =
      (source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto").string();
  EXPECT_EQ(cli::run_cli({"capacity", file, "--format", "csv"}, out, err), 0) << err.str();
  EXPECT_EQ(out.str().rfind("rate_per_s,ttft_p99_s,tpot_p99_s,completed,rejected,meets_slo\n", 0),
            0u);
  std::ostringstream out2;
  EXPECT_EQ(cli::run_cli({"capacity", file, "--ttft-ms", "0.001"}, out2, err), 1)
      << "no rate gives a microsecond TTFT: a check failed";
  EXPECT_NE(out2.str().find("no rate tried meets the objectives"), std::string::npos);
}

TEST(Capacity, FewestChipsAtATargetRate) {
  std::vector<config::ServeSpec> specs;
  for (const char* f :
       {"llama3-70b-disaggregated.serve.textproto", "llama3-70b-azure-conv.serve.textproto"})
    specs.push_back(config::load_serve_file(source_dir() / "workloads/serve" / f));
  CapacityOptions o;
  o.ttft_ms = 1000;
  o.tpot_ms = 100;
  const FewestChips at2 = fewest_chips(specs, 2, o);
  ASSERT_EQ(at2.configs.size(), 2u);
  EXPECT_EQ(at2.configs[0].chips, 48u) << "three v5e 4x4 slices";
  EXPECT_EQ(at2.configs[1].chips, 16u);
  EXPECT_TRUE(at2.configs[0].run.ok);
  EXPECT_TRUE(at2.configs[1].run.ok);
  EXPECT_EQ(at2.best, 1) << "both meet the objectives at 2 requests/s; one slice is fewer chips";
  o.tpot_ms = 20;  // only the disaggregated decode pool keeps p99 TPOT under 20 ms
  const FewestChips strict = fewest_chips(specs, 2, o);
  EXPECT_EQ(strict.best, 0);
}

}  // namespace capacity_test
}  // namespace podsim::fleet
