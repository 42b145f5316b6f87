// One conformance suite over every router (fleet/router.h), and both on a
// fleet of identical replicas.
#include "fleet/router.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/rng.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace router_test {

struct Case {
  std::string name;
  config::RouterKind kind;
};

class RouterConformance : public ::testing::TestWithParam<Case> {};

TEST_P(RouterConformance, PicksAReplicaDeterministically) {
  auto a = make_router(GetParam().kind);
  auto b = make_router(GetParam().kind);
  Rng rng(4);
  std::vector<uint64_t> load(7);
  for (int i = 0; i < 1000; ++i) {
    for (auto& l : load)
      l = rng.uniform_int(0, 50);
    const uint32_t ra = a->route(load);
    EXPECT_LT(ra, load.size());
    EXPECT_EQ(ra, b->route(load));
  }
}

TEST_P(RouterConformance, SpreadsEqualLoadOverEveryReplica) {
  auto r = make_router(GetParam().kind);
  std::vector<uint64_t> load(5, 0);
  std::vector<int> hits(5, 0);
  for (int i = 0; i < 100; ++i) {
    const uint32_t k = r->route(load);
    ++hits[k];
    load[k] += 10;  // the request's tokens join that replica
  }
  for (int h : hits)
    EXPECT_EQ(h, 20);
}

TEST_P(RouterConformance, BalancesAFleetOfIdenticalReplicas) {
  testing::LinearTimer timer;
  FleetSetup setup;
  for (int i = 0; i < 4; ++i)
    setup.replicas.push_back(
        testing::replica(timer, config::SchedulerKind::kContinuous, 32, 4096, 100000));
  setup.router = GetParam().kind;
  config::ArrivalSpec spec;
  spec.kind = config::ArrivalKind::kPoisson;
  spec.rate_per_s = 40;
  spec.prompt.kind = config::LengthKind::kUniform;
  spec.prompt.min = 10;
  spec.prompt.max = 500;
  spec.output.kind = config::LengthKind::kUniform;
  spec.output.min = 1;
  spec.output.max = 200;
  setup.arrivals = make_arrival_process(spec, 8);
  setup.max_requests = 4000;
  const FleetRun r = simulate(std::move(setup));
  std::vector<int> hits(4, 0);
  for (const RequestRecord& q : r.requests)
    ++hits[q.replica];
  for (int h : hits)
    EXPECT_NEAR(h, 1000, 100);
}

INSTANTIATE_TEST_SUITE_P(Kinds, RouterConformance,
                         ::testing::Values(Case{"round_robin", config::RouterKind::kRoundRobin},
                                           Case{"least_outstanding_tokens",
                                                config::RouterKind::kLeastOutstandingTokens}),
                         [](const auto& p) { return p.param.name; });

TEST(LeastOutstandingTokens, PicksTheLightestAndTheFirstOfEquals) {
  auto r = make_router(config::RouterKind::kLeastOutstandingTokens);
  const std::vector<uint64_t> load = {9, 3, 7, 3};
  EXPECT_EQ(r->route(load), 1u);
}

TEST(RoundRobin, TakesTurns) {
  auto r = make_router(config::RouterKind::kRoundRobin);
  const std::vector<uint64_t> load = {100, 0, 0};
  EXPECT_EQ(r->route(load), 0u);
  EXPECT_EQ(r->route(load), 1u);
  EXPECT_EQ(r->route(load), 2u);
  EXPECT_EQ(r->route(load), 0u);
}

}  // namespace router_test
}  // namespace podsim::fleet
