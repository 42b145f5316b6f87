// Time between tokens (docs/serving.md, "Time between tokens"): the
// streamed histogram's percentiles within their bound, gaps of hand-worked
// schedules (a chunked prefill stalling a decode; a speculative
// verification's tokens emitted together), the TBT objective in goodput.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "fleet/capacity.h"
#include "fleet/capacity_lookahead.h"
#include "fleet/fleet_sim.h"
#include "fleet/gap_histogram.h"
#include "fleet/slo_classes.h"
#include "fleet/summary.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace tbt_test {

using testing::LinearTimer;
using testing::replica;
using testing::trace_of;

sim::Time us(double v) {
  return sim::Time::ps(static_cast<int64_t>(std::llround(v * 1e6)));
}

TEST(GapHistogram, BucketsTileTheLineAndStayWithinTheirResolution) {
  int64_t next = 0;
  for (int b = 0; b < GapHistogram::kBuckets; ++b) {
    ASSERT_EQ(GapHistogram::bucket_low(b), next) << "bucket " << b;
    ASSERT_EQ(GapHistogram::bucket_of(GapHistogram::bucket_low(b)), b);
    const int64_t width = GapHistogram::bucket_width(b);
    if (b == GapHistogram::kBuckets - 1)
      break;  // its top is 2^63
    ASSERT_EQ(GapHistogram::bucket_of(next + width - 1), b);
    // Half a bucket is within the relative error of its lowest value.
    ASSERT_LE(static_cast<double>(width / 2),
              GapHistogram::kRelativeError * static_cast<double>(GapHistogram::bucket_low(b)));
    next += width;
  }
  EXPECT_EQ(GapHistogram::bucket_of(std::numeric_limits<int64_t>::max()),
            GapHistogram::kBuckets - 1);
}

// Every percentile of random gaps (log-uniform from 1 ps to 10 s, a fifth
// exactly zero as speculative tokens are) within kRelativeError of the exact
// nearest-rank value; count, mean and max exact.
TEST(GapHistogram, PercentilesAreWithinTheBoundOfTheExactOnes) {
  std::mt19937_64 rng(32);
  for (const size_t n : {size_t{1}, size_t{7}, size_t{1000}, size_t{200000}}) {
    std::uniform_real_distribution<double> log_ps(0, 13);
    std::bernoulli_distribution zero(0.2);
    GapHistogram h;
    std::vector<double> exact;
    std::vector<int64_t> ps;
    int64_t max = 0;
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = zero(rng) ? 0 : static_cast<int64_t>(std::pow(10.0, log_ps(rng)));
      ps.push_back(v);
      exact.push_back(sim::Time::ps(v).to_s());
      h.add(sim::Time::ps(v));
      max = std::max(max, v);
    }
    std::sort(ps.begin(), ps.end());
    ASSERT_EQ(h.count(), n);
    EXPECT_EQ(h.max(), sim::Time::ps(max));
    long double sum = 0;
    for (const int64_t v : ps)
      sum += static_cast<long double>(v);
    EXPECT_NEAR(h.mean_s(), static_cast<double>(sum / n) * 1e-12, 1e-15 * h.mean_s());
    for (double q = 0.5; q <= 100; q += 0.5) {
      const auto k = std::max<size_t>(static_cast<size_t>(std::ceil(q / 100 * n)), 1);
      const double want = sim::Time::ps(ps[k - 1]).to_s();
      const double got = h.percentile_s(q);
      ASSERT_LE(std::abs(got - want), GapHistogram::kRelativeError * want * (1 + 1e-12))
          << "n " << n << " q " << q << ": " << got << " vs " << want;
    }
    const Percentiles p = percentiles(h);
    const Percentiles e = percentiles(exact);
    EXPECT_EQ(p.count, e.count);
    EXPECT_EQ(p.max, e.max);
    EXPECT_LE(std::abs(p.p99 - e.p99), GapHistogram::kRelativeError * e.p99 * (1 + 1e-12));
  }
}

TEST(GapHistogram, MergingTwoStreamsIsAddingBoth) {
  GapHistogram a;
  GapHistogram b;
  GapHistogram both;
  for (int i = 0; i < 5000; ++i) {
    const sim::Time t = sim::Time::ns(int64_t{i} * i + 3);
    (i % 3 == 0 ? a : b).add(t);
    both.add(t);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.max(), both.max());
  EXPECT_EQ(a.mean_s(), both.mean_s());
  for (const double q : {1.0, 50.0, 90.0, 99.0, 99.9})
    EXPECT_EQ(a.percentile_s(q), both.percentile_s(q));
  EXPECT_EQ(GapHistogram().percentile_s(99), 0);
}

// Chunked prefill, 64 tokens a step; step time 1000 us + 10 us a prefill
// token + 50 us a decode. A (prompt 16, output 4) arrives at 0, B (prompt
// 100, output 2) at 0.5 ms:
//   step 1  0     -> 1160  A prefills 16                     (A's token 1)
//   step 2  1160  -> 2840  A decodes, B prefills 63 (mixed)  (A's token 2)
//   step 3  2840  -> 4260  A decodes, B prefills 37 (mixed)  (A 3, B 1)
//   step 4  4260  -> 5360  A and B decode                    (A 4, B 2)
// A's gaps 1680, 1420, 1100 us (its mean TPOT 1400 us hides the 1680 us
// stall); B's 1100 us.
struct TwoRequests {
  LinearTimer timer;
  FleetRun run;
};

void run_two(TwoRequests& t, const config::SloSpec& slo) {
  t.timer.fixed_us = 1000;
  t.timer.per_prefill_token_us = 10;
  t.timer.per_decode_us = 50;
  t.timer.per_context_token_us = 0;
  FleetSetup setup;
  setup.replicas.push_back(replica(t.timer, config::SchedulerKind::kChunkedPrefill, 8, 64, 64));
  setup.arrivals = make_arrival_process(trace_of({{0, 16, 4}, {0.0005, 100, 2}}), 1);
  setup.slo_by_class = slo_table(slo, {});
  setup.record_steps = true;
  t.run = simulate(std::move(setup));
}

TEST(TimeBetweenTokens, AChunkedPrefillStallsADecodeByHand) {
  TwoRequests t;
  run_two(t, config::SloSpec{});
  const std::vector<StepRecord>& steps = t.run.steps.at(0);
  ASSERT_EQ(steps.size(), 4u);
  const double ends_us[] = {1160, 2840, 4260, 5360};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(steps[i].end, us(ends_us[i])) << "step " << i + 1;
  const RequestRecord& a = t.run.requests.at(0);
  const RequestRecord& b = t.run.requests.at(1);
  EXPECT_EQ(a.max_tbt, us(1680));
  EXPECT_EQ(b.max_tbt, us(1100));
  EXPECT_EQ(a.tokens_emitted, 4u);
  EXPECT_EQ(b.tokens_emitted, 2u);

  const ServeSummary s =
      summarize(t.run, {replica(t.timer, config::SchedulerKind::kChunkedPrefill, 8, 64, 64)},
                config::SloSpec{});
  EXPECT_EQ(s.tbt_s.count, 4u);  // (4 - 1) + (2 - 1)
  EXPECT_DOUBLE_EQ(s.tbt_s.mean, (1680 + 1420 + 1100 + 1100) * 1e-6 / 4);
  EXPECT_DOUBLE_EQ(s.tbt_s.max, 1680e-6);
  // Nearest rank of {1100, 1100, 1420, 1680}: p50 the 2nd, p90 and p99 the 4th.
  EXPECT_NEAR(s.tbt_s.p50, 1100e-6, 1100e-6 * GapHistogram::kRelativeError);
  EXPECT_DOUBLE_EQ(s.tbt_s.p99, 1680e-6);
  // TPOT, a mean per request, never sees the stall: A's is 1400 us.
  EXPECT_DOUBLE_EQ(s.tpot_s.max, 1400e-6);
  EXPECT_LT(s.tpot_s.p99, s.tbt_s.p99);
  EXPECT_EQ(s.tbt_gaps_over_slo, 0u);
  EXPECT_EQ(s.slo_met, 2u);  // no objective
}

TEST(TimeBetweenTokens, TheObjectiveBindsTheLongestGapNotTheMean) {
  // TPOT <= 1.5 ms passes both; max TBT <= 1.5 ms fails A (1.68 ms).
  TwoRequests t;
  config::SloSpec slo;
  slo.tpot_ms = 1.5;
  slo.tbt_ms = 1.5;
  run_two(t, slo);
  const auto setups = {replica(t.timer, config::SchedulerKind::kChunkedPrefill, 8, 64, 64)};
  const ServeSummary s = summarize(t.run, setups, slo);
  EXPECT_EQ(t.run.requests[0].tbt_over_slo, 1u);
  EXPECT_EQ(t.run.requests[1].tbt_over_slo, 0u);
  EXPECT_EQ(s.slo_met, 1u);
  EXPECT_EQ(s.tbt_gaps_over_slo, 1u);
  EXPECT_DOUBLE_EQ(s.tbt_over_slo_fraction, 0.25);
  EXPECT_DOUBLE_EQ(s.slo_tbt_ms, 1.5);
  // At exactly the longest gap the objective is met (within, not under).
  TwoRequests u;
  slo.tbt_ms = 1.68;
  run_two(u, slo);
  EXPECT_EQ(summarize(u.run, setups, slo).slo_met, 2u);

  // The objective changes no step and no other figure.
  TwoRequests off;
  config::SloSpec none = slo;
  none.tbt_ms = 0;
  run_two(off, none);
  EXPECT_EQ(off.run.fingerprint, u.run.fingerprint);
  EXPECT_EQ(off.run.events, u.run.events);
}

// Speculative decoding, every draft accepted (2 drafts): a verification
// emits 3 tokens together, the first after the step, the others with gap 0.
TEST(TimeBetweenTokens, TokensOfOneVerificationComeTogether) {
  LinearTimer timer;
  timer.per_context_token_us = 0;
  FleetSetup setup;
  ReplicaSetup r = replica(timer, config::SchedulerKind::kContinuous, 8, 4096, 64);
  r.limits.decode_tokens = 3;
  r.acceptance = {1.0, 1.0};
  setup.replicas.push_back(r);
  setup.arrivals = make_arrival_process(trace_of({{0, 16, 7}}), 1);
  setup.slo_by_class = slo_table(config::SloSpec{}, {});
  setup.record_steps = true;
  const FleetRun run = simulate(std::move(setup));
  const std::vector<StepRecord>& steps = run.steps.at(0);
  ASSERT_EQ(steps.size(), 3u);  // prefill (token 1), verify (2-4), verify (5-7)
  const sim::Time verify = steps[1].end - steps[1].start;
  EXPECT_EQ(steps[2].end - steps[2].start, verify);
  const ServeSummary s = summarize(run, {r}, config::SloSpec{});
  EXPECT_EQ(s.tbt_s.count, 6u);  // output - 1
  EXPECT_EQ(s.tbt_s.p50, 0);     // {0, 0, 0, 0, T, T}
  EXPECT_DOUBLE_EQ(s.tbt_s.p90, verify.to_s());
  EXPECT_DOUBLE_EQ(s.tbt_s.max, verify.to_s());
  EXPECT_EQ(run.requests[0].max_tbt, verify);
  // The gaps add up to first token -> finish; TPOT is their mean.
  EXPECT_DOUBLE_EQ(s.tbt_s.mean * 6, (run.requests[0].finish - run.requests[0].first_token).to_s());
  EXPECT_DOUBLE_EQ(s.tbt_s.mean, s.tpot_s.mean);
}

// podsim capacity --tbt-ms: the percentile of every gap within it, beside
// TTFT and TPOT; the figure crosses MPI ranks with the probe.
TEST(TimeBetweenTokens, CapacityHoldsThePercentileOfEveryGap) {
  ServeSummary s;
  s.completed = 10;
  s.tpot_s.p99 = 0.05;
  s.tbt_s.p90 = 0.08;
  s.tbt_s.p99 = 0.2;
  CapacityOptions options;
  options.tpot_ms = 100;
  CapacityRun run;
  EXPECT_TRUE(meets(s, options, run)) << "no TBT objective";
  EXPECT_EQ(run.tbt_s, 0.2);
  options.tbt_ms = 100;
  EXPECT_FALSE(meets(s, options, run));
  options.percentile = 90;
  EXPECT_TRUE(meets(s, options, run));
  EXPECT_EQ(run.tbt_s, 0.08);
  Probe p;
  p.run = run;
  EXPECT_EQ(decode_probe(encode_probe(p)).run.tbt_s, 0.08);
}

}  // namespace tbt_test
}  // namespace podsim::fleet
