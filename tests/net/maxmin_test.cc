// The max-min solver on cases solved by hand, and drain_time's rounding.
#include "net/maxmin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace podsim::net {
namespace {

// A fixed generator (xorshift64), so that the random tests are reproducible:
// next(bound) is uniform enough in [0, bound).
struct Xorshift {
  uint64_t x;
  uint32_t operator()(uint32_t bound) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return static_cast<uint32_t>(x % bound);
  }
};

std::vector<double> solve(const MaxMinProblem& p) {
  MaxMinSolver solver;
  std::vector<double> rates;
  solver.solve(p, rates);
  return rates;
}

TEST(MaxMin, ClassicThreeFlowExample) {
  // Links 1 (capacity 1) and 2 (capacity 2); A crosses both, B link 1, C link 2.
  // Link 1 fills first at 0.5 each (A, B); C takes what A leaves of link 2.
  MaxMinProblem p;
  const uint32_t l1 = p.add_link(1.0);
  const uint32_t l2 = p.add_link(2.0);
  p.add_flow(std::vector<uint32_t>{l1, l2});
  p.add_flow(std::vector<uint32_t>{l1});
  p.add_flow(std::vector<uint32_t>{l2});
  EXPECT_EQ(solve(p), (std::vector<double>{0.5, 0.5, 1.5}));
}

TEST(MaxMin, LoneFlowGetsItsBottleneck) {
  MaxMinProblem p;
  const uint32_t a = p.add_link(45e9);
  const uint32_t b = p.add_link(12.5e9);
  const uint32_t c = p.add_link(45e9);
  p.add_flow(std::vector<uint32_t>{a, b, c});
  EXPECT_EQ(solve(p), std::vector<double>{12.5e9});
}

TEST(MaxMin, AFlowLoadsALinkOnceForEveryCrossing) {
  // A route over link classes may cross a link twice: alone or with company,
  // the flow counts twice there (its two copies in the full pod).
  MaxMinProblem alone;
  const uint32_t a = alone.add_link(9.0);
  const uint32_t b = alone.add_link(8.0);
  alone.add_flow(std::vector<uint32_t>{a, b, a});
  EXPECT_EQ(solve(alone), std::vector<double>{4.5});

  MaxMinProblem shared;
  const uint32_t l = shared.add_link(9.0);
  shared.add_flow(std::vector<uint32_t>{l, l});
  shared.add_flow(std::vector<uint32_t>{l});
  EXPECT_EQ(solve(shared), (std::vector<double>{3.0, 3.0}));
}

TEST(MaxMin, EqualFlowsSplitALinkEvenly) {
  MaxMinProblem p;
  const uint32_t l = p.add_link(9.0);
  for (int i = 0; i < 3; ++i)
    p.add_flow(std::vector<uint32_t>{l});
  EXPECT_EQ(solve(p), (std::vector<double>{3.0, 3.0, 3.0}));
}

TEST(MaxMin, ParkingLot) {
  // A line of 3 links of capacity 1: the long flow crosses all three, one short
  // flow per link. Every link has two flows: all get 1/2.
  MaxMinProblem p;
  const uint32_t l0 = p.add_link(1.0), l1 = p.add_link(1.0), l2 = p.add_link(1.0);
  p.add_flow(std::vector<uint32_t>{l0, l1, l2});
  p.add_flow(std::vector<uint32_t>{l0});
  p.add_flow(std::vector<uint32_t>{l1});
  p.add_flow(std::vector<uint32_t>{l2});
  EXPECT_EQ(solve(p), (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
}

TEST(MaxMin, ThreeLevels) {
  // Link X (cap 3) carries f0, f1, f2; link Y (cap 10) carries f2, f3; link Z
  // (cap 4) carries f3, f4. Levels: X fills at 1 (f0, f1, f2 = 1); then Z has
  // f3, f4 at 2 each, Y has f3 alone with 9 left: Z binds, f3 = f4 = 2.
  MaxMinProblem p;
  const uint32_t x = p.add_link(3.0), y = p.add_link(10.0), z = p.add_link(4.0);
  p.add_flow(std::vector<uint32_t>{x});
  p.add_flow(std::vector<uint32_t>{x});
  p.add_flow(std::vector<uint32_t>{x, y});
  p.add_flow(std::vector<uint32_t>{y, z});
  p.add_flow(std::vector<uint32_t>{z});
  EXPECT_EQ(solve(p), (std::vector<double>{1.0, 1.0, 1.0, 2.0, 2.0}));
}

TEST(MaxMin, UnsaturatedLinkLeavesSpareCapacity) {
  // f0 crosses a thin link (1) and a fat one (100); f1 crosses the fat one only
  // and takes the rest: 99.
  MaxMinProblem p;
  const uint32_t thin = p.add_link(1.0), fat = p.add_link(100.0);
  p.add_flow(std::vector<uint32_t>{fat, thin});
  p.add_flow(std::vector<uint32_t>{fat});
  EXPECT_EQ(solve(p), (std::vector<double>{1.0, 99.0}));
}

TEST(MaxMin, SolverIsReusableAcrossProblems) {
  MaxMinSolver solver;
  std::vector<double> rates;
  MaxMinProblem big;
  const uint32_t l = big.add_link(8.0);
  for (int i = 0; i < 4; ++i)
    big.add_flow(std::vector<uint32_t>{l});
  solver.solve(big, rates);
  EXPECT_EQ(rates, (std::vector<double>{2, 2, 2, 2}));
  MaxMinProblem small;
  const uint32_t a = small.add_link(1.0), b = small.add_link(3.0);
  small.add_flow(std::vector<uint32_t>{a});
  small.add_flow(std::vector<uint32_t>{b});
  solver.solve(small, rates);
  EXPECT_EQ(rates, (std::vector<double>{1, 3}));
  big.clear();
  EXPECT_EQ(big.link_count(), 0u);
  EXPECT_EQ(big.flow_count(), 0u);
}

TEST(MaxMin, LinkSideThatDoesNotMatchIsRejected) {
  MaxMinProblem p;
  const uint32_t a = p.add_link(1.0);
  p.add_link(1.0);
  p.add_flow(std::vector<uint32_t>{a});
  p.add_flow(std::vector<uint32_t>{a});
  p.push_flow(0);  // link a lists one of its two flows
  p.end_link();
  p.end_link();
  MaxMinSolver solver;
  std::vector<double> rates;
  EXPECT_THROW(solver.solve(p, rates), std::invalid_argument);
}

TEST(MaxMin, FlowWithoutLinksIsRejected) {
  MaxMinProblem p;
  p.add_link(1.0);
  p.add_flow(std::vector<uint32_t>{});
  MaxMinSolver solver;
  std::vector<double> rates;
  EXPECT_THROW(solver.solve(p, rates), std::invalid_argument);
}

// Max-min fairness by its characterisation: rates are feasible (no link
// carries more than its capacity) and every flow has a bottleneck, a link of
// its route that is full and on which no flow has a higher rate. Random
// problems (a fixed generator, so the test is reproducible) with few distinct
// capacities, so that links tie on share and the heap's tie-break is used.
TEST(MaxMin, RandomProblemsAreMaxMinFair) {
  Xorshift next{88172645463325252ull};
  MaxMinSolver solver;  // reused across problems, as the flow model does
  std::vector<double> rates;
  for (int trial = 0; trial < 300; ++trial) {
    MaxMinProblem p;
    const uint32_t links = 1 + next(40);
    const uint32_t flows = 1 + next(60);
    for (uint32_t l = 0; l < links; ++l)
      p.add_link(static_cast<double>(1 + next(4)) * 12.5e9);
    std::vector<std::vector<uint32_t>> routes(flows);
    for (auto& route : routes) {
      const uint32_t hops = 1 + next(std::min<uint32_t>(links, 6));
      while (route.size() < hops) {
        const uint32_t l = next(links);
        if (std::find(route.begin(), route.end(), l) == route.end())
          route.push_back(l);
      }
      p.add_flow(route);
    }
    solver.solve(p, rates);
    ASSERT_EQ(rates.size(), flows);
    // Given the same incidences by link, in another order within each link
    // (the flow model's walk lists a link's flows in its member order), the
    // solver gives the same rates, bit for bit.
    MaxMinProblem by_link = p;
    for (uint32_t l = 0; l < links; ++l) {
      std::vector<uint32_t> carried;
      for (uint32_t f = 0; f < flows; ++f) {
        if (std::find(routes[f].begin(), routes[f].end(), l) != routes[f].end())
          carried.push_back(f);
      }
      std::reverse(carried.begin(), carried.end());
      if (carried.size() > 2)
        std::rotate(carried.begin(), carried.begin() + next(static_cast<uint32_t>(carried.size())),
                    carried.end());
      for (const uint32_t f : carried)
        by_link.push_flow(f);
      by_link.end_link();
    }
    std::vector<double> rates_by_link;
    solver.solve(by_link, rates_by_link);
    ASSERT_EQ(rates_by_link, rates) << "trial " << trial;
    std::vector<double> load(links, 0.0);
    for (uint32_t f = 0; f < flows; ++f) {
      ASSERT_GT(rates[f], 0.0) << "trial " << trial << " flow " << f;
      for (const uint32_t l : routes[f])
        load[l] += rates[f];
    }
    for (uint32_t l = 0; l < links; ++l)
      ASSERT_LE(load[l], p.capacity[l] * (1 + 1e-12)) << "trial " << trial << " link " << l;
    for (uint32_t f = 0; f < flows; ++f) {
      bool bottlenecked = false;
      for (const uint32_t l : routes[f]) {
        if (load[l] < p.capacity[l] * (1 - 1e-12))
          continue;  // not full
        bool highest = true;
        for (uint32_t g = 0; g < flows && highest; ++g) {
          const bool crosses = std::find(routes[g].begin(), routes[g].end(), l) != routes[g].end();
          highest = !crosses || rates[g] <= rates[f] * (1 + 1e-12);
        }
        bottlenecked = bottlenecked || highest;
      }
      ASSERT_TRUE(bottlenecked) << "trial " << trial << " flow " << f << " has no bottleneck";
    }
  }
}

// The rates are a function of the problem's shape, not of its numbering:
// renumbering the links and the flows, and listing each flow's links in
// another order, gives every flow the same rate, bit for bit. A symmetric
// run relies on it: its class problem and the full run's number the copies
// of a link differently (symmetry_random_test.cc). Capacities with
// fractional shares and few distinct values, so that links tie on share
// after rounding.
TEST(MaxMin, RatesDoNotDependOnTheNumbering) {
  Xorshift next{0x9e3779b97f4a7c15ull};
  const auto shuffled = [&next](uint32_t n) {
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i)
      order[i] = i;
    for (uint32_t i = n; i > 1; --i)
      std::swap(order[i - 1], order[next(i)]);
    return order;
  };
  MaxMinSolver solver;
  for (int trial = 0; trial < 2000; ++trial) {
    const uint32_t links = 1 + next(24);
    const uint32_t flows = 2 + next(40);
    std::vector<double> capacity(links);
    for (double& c : capacity)
      c = 50e9 * (1 + next(3)) / 3;
    std::vector<std::vector<uint32_t>> routes(flows);
    for (auto& route : routes) {
      const uint32_t hops = 1 + next(std::min<uint32_t>(links, 4));
      while (route.size() < hops) {
        const uint32_t l = next(links);
        if (std::find(route.begin(), route.end(), l) == route.end())
          route.push_back(l);
      }
    }
    MaxMinProblem p;
    for (const double c : capacity)
      p.add_link(c);
    for (const auto& route : routes)
      p.add_flow(route);
    std::vector<double> rates;
    solver.solve(p, rates);

    // Link l is link_to[l] in the renumbered problem, flow f is flow_to[f].
    const std::vector<uint32_t> link_to = shuffled(links);
    const std::vector<uint32_t> flow_to = shuffled(flows);
    std::vector<double> capacity_to(links);
    for (uint32_t l = 0; l < links; ++l)
      capacity_to[link_to[l]] = capacity[l];
    std::vector<std::vector<uint32_t>> routes_to(flows);
    for (uint32_t f = 0; f < flows; ++f) {
      for (const uint32_t l : routes[f])
        routes_to[flow_to[f]].push_back(link_to[l]);
      std::reverse(routes_to[flow_to[f]].begin(), routes_to[flow_to[f]].end());
    }
    MaxMinProblem renumbered;
    for (const double c : capacity_to)
      renumbered.add_link(c);
    for (const auto& route : routes_to)
      renumbered.add_flow(route);
    std::vector<double> rates_to;
    solver.solve(renumbered, rates_to);
    for (uint32_t f = 0; f < flows; ++f)
      ASSERT_EQ(rates_to[flow_to[f]], rates[f]) << "trial " << trial << " flow " << f;
  }
}

TEST(DrainTime, WholeNumbersAreExact) {
  // 1000 bytes at 3 B/s: 333.33.. s, rounded up to the picosecond.
  EXPECT_EQ(drain_time(1000, 3), sim::Time::ps(333'333'333'333'334));
  EXPECT_EQ(drain_time(45e9, 45e9), sim::Time::s(1));
}

TEST(DrainTime, FractionsRoundUp) {
  // 1 byte at 2.5 B/s: exactly 0.4 s; 1.5 bytes at 1 B/s: 1.5 s.
  EXPECT_GE(drain_time(1.0, 2.5), sim::Time::ms(400));
  EXPECT_LE(drain_time(1.0, 2.5), sim::Time::ms(400) + sim::Time::ps(1));
  EXPECT_EQ(drain_time(1.5, 1.0), sim::Time::ps(1'500'000'000'000));
  // 1e-13 bytes at 1 B/s is 0.1 ps: never zero while bytes remain.
  EXPECT_EQ(drain_time(1e-13, 1.0), sim::Time::ps(1));
}

TEST(DrainTime, NothingLeftIsNoTime) {
  EXPECT_EQ(drain_time(0, 5), sim::Time::zero());
  EXPECT_EQ(drain_time(-1e-9, 5), sim::Time::zero());
}

TEST(DrainTime, OverflowThrows) {
  EXPECT_THROW(drain_time(1e30, 0.5), sim::TimeOverflow);
}

}  // namespace
}  // namespace podsim::net
