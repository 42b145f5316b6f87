// Disaggregated prefill and decode replicas (issue 14 point 6: "a
// disaggregated configuration pays the KV transfer it should").
#include <gtest/gtest.h>

#include <cmath>

#include "fleet_fixture.h"

namespace podsim::fleet {
namespace disaggregation_test {

using testing::LinearTimer;

FleetSetup pools(StepTimer& timer, uint32_t prefills, uint32_t decodes) {
  FleetSetup setup;
  for (uint32_t i = 0; i < prefills; ++i) {
    ReplicaSetup p = testing::replica(timer, config::SchedulerKind::kContinuous, 16, 4096, 100000);
    p.role = ReplicaRole::kPrefill;
    p.chips = 4;
    p.kv_bytes_per_token = 1000;  // per chip
    setup.replicas.push_back(p);
  }
  for (uint32_t i = 0; i < decodes; ++i) {
    ReplicaSetup d = testing::replica(timer, config::SchedulerKind::kContinuous, 16, 4096, 100000);
    d.role = ReplicaRole::kDecode;
    d.chips = 2;
    setup.replicas.push_back(d);
  }
  setup.kv_transfer.bytes_per_s_per_chip = 1e9;
  setup.kv_transfer.latency = sim::Time::us(10);
  return setup;
}

TEST(Disaggregation, ALoneRequestPaysItsPrefillItsTransferAndItsDecodes) {
  LinearTimer timer;
  FleetSetup setup = pools(timer, 1, 1);
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 500, 4}}), 0);
  const FleetRun r = simulate(std::move(setup));
  ASSERT_EQ(r.requests.size(), 1u);
  const RequestRecord& q = r.requests[0];
  LinearTimer formula;
  const sim::Time prefill = formula.step_time(StepShape{1, 500, 0, 0, 0});
  // 500 tokens x 1000 B on each of 4 chips, received by 2 chips: 1 MB per
  // receiving chip at 1 GB/s, plus the latency.
  const sim::Time transfer = sim::Time::ms(1) + sim::Time::us(10);
  sim::Time decode;
  for (uint32_t k = 0; k < 3; ++k)
    decode += formula.step_time(StepShape{0, 0, 0, 1, 500 + k});
  EXPECT_EQ(q.replica, 0u);
  EXPECT_EQ(q.decode_replica, 1u);
  EXPECT_EQ(q.first_token - q.arrival, prefill);
  EXPECT_EQ(q.kv_transfer, transfer);
  EXPECT_EQ(q.finish - q.arrival, prefill + transfer + decode);
  EXPECT_EQ(r.replicas[0].decode_tokens, 0u) << "the prefill replica never decodes";
  EXPECT_EQ(r.replicas[1].prefill_tokens, 0u) << "the decode replica never prefills";
  EXPECT_EQ(r.replicas[1].decode_tokens, 3u);
}

TEST(Disaggregation, CachesLeavingTogetherQueueOnTheLinks) {
  LinearTimer timer;
  FleetSetup setup = pools(timer, 1, 1);
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 500, 2}, {0, 500, 2}}), 0);
  const FleetRun r = simulate(std::move(setup));
  // The first request prefills alone (an idle replica steps at once); the
  // second in the next step, so their transfers do not overlap.
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.requests[0].kv_transfer, sim::Time::ms(1) + sim::Time::us(10));
  EXPECT_EQ(r.requests[1].kv_transfer, sim::Time::ms(1) + sim::Time::us(10));

  LinearTimer t2;
  FleetSetup batch = pools(t2, 1, 1);
  batch.replicas[0].limits.max_batch = 2;
  // Two requests in one prefill step: the second cache waits for the first.
  batch.arrivals =
      make_arrival_process(testing::trace_of({{0, 10, 1}, {0.001, 500, 2}, {0.001, 500, 2}}), 0);
  const FleetRun b = simulate(std::move(batch));
  ASSERT_EQ(b.requests.size(), 3u);
  EXPECT_EQ(b.requests[1].first_token, b.requests[2].first_token) << "one prefill step";
  EXPECT_EQ(b.requests[1].kv_transfer, sim::Time::ms(1) + sim::Time::us(10));
  EXPECT_EQ(b.requests[2].kv_transfer, sim::Time::ms(2) + sim::Time::us(10));
}

TEST(Disaggregation, PoolsServeEveryRequestAndSplitTheWork) {
  LinearTimer timer;
  FleetSetup setup = pools(timer, 2, 3);
  setup.router = config::RouterKind::kLeastOutstandingTokens;
  config::ArrivalSpec spec;
  spec.kind = config::ArrivalKind::kPoisson;
  spec.rate_per_s = 30;
  spec.prompt.kind = config::LengthKind::kUniform;
  spec.prompt.min = 1;
  spec.prompt.max = 800;
  spec.output.kind = config::LengthKind::kUniform;
  spec.output.min = 1;
  spec.output.max = 300;
  setup.arrivals = make_arrival_process(spec, 3);
  setup.max_requests = 3000;
  const FleetRun r = simulate(std::move(setup));
  uint64_t prompts = 0;
  uint64_t decodes = 0;
  for (const RequestRecord& q : r.requests) {
    ASSERT_TRUE(q.done);
    EXPECT_LT(q.replica, 2u);
    if (q.output_tokens > 1) {
      EXPECT_GE(q.decode_replica, 2u);
      EXPECT_GT(q.kv_transfer, sim::Time());
    }
    prompts += q.prompt_tokens;
    decodes += q.output_tokens - 1;
  }
  EXPECT_EQ(r.replicas[0].prefill_tokens + r.replicas[1].prefill_tokens, prompts);
  uint64_t decoded = 0;
  for (size_t i = 2; i < 5; ++i) {
    decoded += r.replicas[i].decode_tokens;
    EXPECT_GT(r.replicas[i].decode_tokens, 0u) << "every decode replica gets work";
  }
  EXPECT_EQ(decoded, decodes);
}

}  // namespace disaggregation_test
}  // namespace podsim::fleet
