// The frontier and the pruning rule on hand-made points, and the pruning
// guarantee on many random ones: with estimates within the error of the true
// values, no true frontier point is ever pruned.
#include "search/pareto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace podsim::search {
namespace {

TEST(ParetoFrontier, KeepsWhatNothingDominatesByLatency) {
  //                         thr  latency
  const std::vector<Objectives> p = {{10, 100},   // 0: frontier
                                     {20, 200},   // 1: frontier
                                     {15, 250},   // 2: beaten by 1
                                     {30, 400},   // 3: frontier
                                     {5, 50},     // 4: frontier (fastest)
                                     {20, 300}};  // 5: beaten by 1 (same thr, slower)
  EXPECT_EQ(pareto_frontier(p), (std::vector<size_t>{4, 0, 1, 3}));
}

TEST(ParetoFrontier, EqualPointsAreAllKeptAndEqualLatencyTakesTheBest) {
  const std::vector<Objectives> p = {{10, 100}, {10, 100}, {8, 100}, {12, 150}};
  EXPECT_EQ(pareto_frontier(p), (std::vector<size_t>{0, 1, 3}));
  EXPECT_TRUE(pareto_frontier({}).empty());
}

TEST(BeatenBeyondError, PrunesOnlyBeyondTheErrorInBothObjectives) {
  const double e = 0.05;
  const double f = 1 + e;
  const std::vector<Objectives> exact = {{100, 100}};
  const std::vector<Objectives> estimates = {
      {100 / f / 1.01, 100 * f * 1.01},  // 0: beaten in both beyond the error: pruned
      {100 / f * 1.01, 100 * f * 1.01},  // 1: throughput within the error: kept
      {100 / f / 1.01, 100 * f / 1.01},  // 2: latency within the error: kept
      {100 / f, 100 * f * 2},            // 3: exactly at the error in throughput: kept
      {1, 1},                            // 4: faster than every exact point: kept
  };
  EXPECT_EQ(beaten_beyond_error(estimates, exact, e),
            (std::vector<bool>{true, false, false, false, false}));
  EXPECT_EQ(beaten_beyond_error(estimates, exact, 0),
            (std::vector<bool>{true, true, true, true, false}));
  EXPECT_EQ(beaten_beyond_error(estimates, {}, e), std::vector<bool>(5, false));
  EXPECT_THROW(beaten_beyond_error(estimates, exact, -0.1), std::invalid_argument);
}

// Random true points and estimates that are at most e too slow (and anything
// up to 30% too fast), pruned against the truth of the estimated frontier,
// round after round as the search does: the frontier of what was simulated
// is the true frontier, and pruning does prune.
TEST(BeatenBeyondError, NeverDropsATrueFrontierPoint) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> lat(10, 1000);
  std::uniform_real_distribution<double> tokens(1, 100);
  const double e = 0.05;
  std::uniform_real_distribution<double> err(-0.3, e);
  size_t simulated_total = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<Objectives> truth;
    std::vector<Objectives> estimate;
    for (int i = 0; i < 60; ++i) {
      const double l = lat(rng);
      const double t = tokens(rng) * 1000 / l;
      truth.push_back({t, l});
      const double a = l * (1 + err(rng));
      estimate.push_back({t * l / a, a});
    }
    std::vector<size_t> undecided(truth.size());
    for (size_t i = 0; i < undecided.size(); ++i)
      undecided[i] = i;
    std::vector<Objectives> exact;
    std::vector<size_t> exact_index;
    while (!undecided.empty()) {
      std::vector<Objectives> points;
      for (size_t i : undecided)
        points.push_back(estimate[i]);
      std::vector<bool> picked(truth.size(), false);
      for (size_t k : pareto_frontier(points)) {
        picked[undecided[k]] = true;
        exact.push_back(truth[undecided[k]]);
        exact_index.push_back(undecided[k]);
      }
      std::vector<size_t> rest;
      std::vector<Objectives> rest_points;
      for (size_t i : undecided) {
        if (!picked[i]) {
          rest.push_back(i);
          rest_points.push_back(estimate[i]);
        }
      }
      const std::vector<bool> beaten = beaten_beyond_error(rest_points, exact, e);
      undecided.clear();
      for (size_t k = 0; k < rest.size(); ++k) {
        if (!beaten[k])
          undecided.push_back(rest[k]);
      }
    }
    std::vector<size_t> found;
    for (size_t k : pareto_frontier(exact))
      found.push_back(exact_index[k]);
    std::sort(found.begin(), found.end());
    std::vector<size_t> expected = pareto_frontier(truth);
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(found, expected) << "round " << round;
    simulated_total += exact.size();
  }
  EXPECT_LT(simulated_total, 200u * 60 / 2);  // most random points are never simulated
}

}  // namespace
}  // namespace podsim::search
