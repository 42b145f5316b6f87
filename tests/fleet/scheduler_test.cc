// One conformance suite over every scheduler (fleet/scheduler.h), on a
// formula for step times: every request is served in full, within the
// batch, token and KV limits, deterministically; preemption recovers.
#include "fleet/scheduler.h"

#include <gtest/gtest.h>

#include <string>

#include "fleet/rng.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace scheduler_test {

using testing::LinearTimer;
using testing::TestRequest;

// Checks every step's shape against the limits as it is asked for.
class LimitChecker final : public StepTimer {
 public:
  LimitChecker(config::SchedulerKind kind, SchedulerLimits limits) : kind_(kind), limits_(limits) {}
  sim::Time step_time(const StepShape& s) override {
    EXPECT_FALSE(s.empty());
    EXPECT_LE(s.prefill_sequences + s.decode_sequences, limits_.max_batch);
    const bool alone = s.prefill_sequences == 1 && s.decode_sequences <= limits_.max_batch;
    if (kind_ == config::SchedulerKind::kChunkedPrefill || !alone) {
      EXPECT_LE(s.prefill_tokens + s.decode_sequences, limits_.max_tokens_per_step);
    }
    if (kind_ == config::SchedulerKind::kStatic) {
      EXPECT_TRUE(s.prefill_sequences == 0 || s.decode_sequences == 0) << "static never mixes";
    }
    return inner_.step_time(s);
  }

 private:
  config::SchedulerKind kind_;
  SchedulerLimits limits_;
  LinearTimer inner_;
};

struct Case {
  std::string name;
  config::SchedulerKind kind;
  bool swap = false;  // preemption by swapping to host memory
};

std::vector<TestRequest> requests(uint64_t seed, int n, double rate) {
  Rng rng(seed);
  std::vector<TestRequest> out;
  double t = 0;
  for (int i = 0; i < n; ++i) {
    t += rng.exponential(1 / rate);
    out.push_back({t, static_cast<uint32_t>(rng.uniform_int(1, 600)),
                   static_cast<uint32_t>(rng.uniform_int(1, 300))});
  }
  return out;
}

FleetRun run(const Case& c, uint64_t kv_blocks, StepTimer& timer,
             const std::vector<TestRequest>& reqs) {
  FleetSetup setup;
  setup.replicas.push_back(testing::replica(timer, c.kind, 16, 1024, kv_blocks));
  if (c.swap)
    setup.replicas.back().swap_s_per_token = 1e-6;
  setup.arrivals = make_arrival_process(testing::trace_of(reqs), 0);
  return simulate(std::move(setup));
}

class SchedulerConformance : public ::testing::TestWithParam<Case> {};

TEST_P(SchedulerConformance, ServesEveryRequestInFullWithinItsLimits) {
  const auto reqs = requests(1, 400, 20);
  LimitChecker checker(GetParam().kind, SchedulerLimits{16, 1024, 1});
  const FleetRun r = run(GetParam(), 100000, checker, reqs);
  ASSERT_EQ(r.requests.size(), reqs.size());
  uint64_t prompts = 0;
  uint64_t decodes = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const RequestRecord& q = r.requests[i];
    ASSERT_TRUE(q.done) << i;
    EXPECT_FALSE(q.rejected);
    EXPECT_EQ(q.preemptions, 0u);
    EXPECT_LE(q.arrival, q.admitted);
    EXPECT_LT(q.admitted, q.first_token);
    EXPECT_LE(q.first_token, q.finish);
    EXPECT_EQ(q.first_token == q.finish, q.output_tokens == 1) << i;
    prompts += q.prompt_tokens;
    decodes += q.output_tokens - 1;
  }
  EXPECT_EQ(r.replicas[0].prefill_tokens, prompts);
  EXPECT_EQ(r.replicas[0].decode_tokens, decodes);
  EXPECT_LE(r.replicas[0].peak_batch, 16u);
}

TEST_P(SchedulerConformance, SameInputsSameRun) {
  const auto reqs = requests(2, 300, 30);
  LinearTimer t1;
  LinearTimer t2;
  const FleetRun a = run(GetParam(), 400, t1, reqs);
  const FleetRun b = run(GetParam(), 400, t2, reqs);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i)
    EXPECT_EQ(a.requests[i].finish, b.requests[i].finish);
}

TEST_P(SchedulerConformance, ATightCacheNeverOverflowsAndEveryRequestEnds) {
  // 120 blocks of 16 tokens: 1920 tokens for up to 16 sequences of up to 900.
  const auto reqs = requests(3, 300, 40);
  LinearTimer t;
  const FleetRun r = run(GetParam(), 120, t, reqs);
  EXPECT_LE(r.replicas[0].peak_kv_blocks, 120u);
  uint64_t preemptions = 0;
  uint64_t prompts = 0;
  uint64_t decodes = 0;
  for (const RequestRecord& q : r.requests) {
    EXPECT_TRUE(q.done);
    EXPECT_FALSE(q.rejected) << "every request fits the cache alone";
    preemptions += q.preemptions;
    prompts += q.prompt_tokens;
    decodes += q.output_tokens - 1;
  }
  const ReplicaTotals& totals = r.replicas[0];
  if (GetParam().swap) {
    EXPECT_GT(totals.swapped_tokens, 0u);
    EXPECT_GT(totals.swap_time, sim::Time());
    // Decoding sequences keep their cache: nothing is computed twice (a
    // chunked prompt preempted while still prefilling starts again).
    EXPECT_EQ(totals.decode_tokens, decodes);
    if (GetParam().kind == config::SchedulerKind::kContinuous) {
      EXPECT_EQ(totals.prefill_tokens, prompts);
    }
  } else {
    EXPECT_EQ(totals.swapped_tokens, 0u);
    if (preemptions > 0) {
      EXPECT_GT(totals.prefill_tokens, prompts) << "recompute prefills again";
    }
  }
  if (GetParam().kind == config::SchedulerKind::kStatic) {
    EXPECT_EQ(preemptions, 0u) << "static batching holds blocks for the whole output up front";
  } else {
    EXPECT_GT(preemptions, 0u) << "the cache is tight enough to preempt";
  }
}

TEST_P(SchedulerConformance, ARequestLargerThanTheCacheIsRejected) {
  LinearTimer t;
  const FleetRun r = run(GetParam(), 10, t, {{0.0, 100, 10}, {0.1, 400, 10}, {0.2, 50, 5}});
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_FALSE(r.requests[0].rejected);
  EXPECT_TRUE(r.requests[1].rejected) << "400 tokens need 26 blocks of 16; the cache has 10";
  EXPECT_FALSE(r.requests[2].rejected);
  EXPECT_TRUE(r.requests[2].done);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, SchedulerConformance,
    ::testing::Values(Case{"static", config::SchedulerKind::kStatic},
                      Case{"continuous", config::SchedulerKind::kContinuous},
                      Case{"chunked_prefill", config::SchedulerKind::kChunkedPrefill},
                      Case{"continuous_swap", config::SchedulerKind::kContinuous, true},
                      Case{"chunked_prefill_swap", config::SchedulerKind::kChunkedPrefill, true}),
    [](const auto& p) { return p.param.name; });

TEST(ChunkedPrefill, SplitsALongPromptOverSteps) {
  LinearTimer t;
  t.record = true;
  FleetSetup setup;
  setup.replicas.push_back(
      testing::replica(t, config::SchedulerKind::kChunkedPrefill, 8, 256, 100000));
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 1000, 3}}), 0);
  const FleetRun r = simulate(std::move(setup));
  ASSERT_GE(t.shapes.size(), 6u);
  // 1000 tokens in chunks of 256: 256, 256, 256, 232 (the last produces the
  // first token), then two decodes.
  EXPECT_EQ(t.shapes[0].prefill_tokens, 256u);
  EXPECT_EQ(t.shapes[1].prefill_context_tokens, 256u);
  EXPECT_EQ(t.shapes[3].prefill_tokens, 232u);
  EXPECT_EQ(t.shapes[4].decode_sequences, 1u);
  EXPECT_EQ(t.shapes[4].decode_context_tokens, 1000u);
  EXPECT_EQ(t.shapes[5].decode_context_tokens, 1001u);
  EXPECT_EQ(t.shapes.size(), 6u);
  EXPECT_TRUE(r.requests[0].done);
}

TEST(StaticBatching, PadsToTheLongestPromptAndRunsToTheLongestOutput) {
  LinearTimer t;
  t.record = true;
  FleetSetup setup;
  setup.replicas.push_back(testing::replica(t, config::SchedulerKind::kStatic, 8, 4096, 100000));
  setup.arrivals =
      make_arrival_process(testing::trace_of({{0, 100, 2}, {0, 300, 5}, {0.0001, 10, 2}}), 0);
  const FleetRun r = simulate(std::move(setup));
  // The first request starts a batch alone (an idle replica steps at once);
  // the other two wait for it and then run as one batch, padded to 300.
  EXPECT_GE(r.requests[1].admitted, r.requests[0].finish);
  EXPECT_EQ(r.requests[1].admitted, r.requests[2].admitted);
  std::vector<StepShape> second;
  for (const StepShape& s : t.shapes) {
    if (s.prefill_sequences == 2 || s.decode_sequences == 2)
      second.push_back(s);
  }
  ASSERT_EQ(second.size(), 5u) << "one prefill, then 4 decodes to the 5th token";
  EXPECT_EQ(second[0].prefill_tokens, 600u);
  EXPECT_EQ(second[1].decode_context_tokens, 600u);
  EXPECT_EQ(second[4].decode_context_tokens, 2u * 303u);
  EXPECT_LT(r.requests[2].finish, r.requests[1].finish)
      << "each request ends with its own last token";
}

}  // namespace scheduler_test
}  // namespace podsim::fleet
