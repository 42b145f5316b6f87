// The flow model against a from-scratch fluid simulation.
//
// FlowNetwork re-solves incrementally (only touched components), batches the
// starts and drains of one instant into one solve, and plans flows alone on
// their links straight to delivery. The reference below does none of that:
// after every start or drain it recomputes every active flow's max-min rate
// from scratch (MaxMinSolver over all active flows, itself tested in
// maxmin_test.cc) and advances time in doubles to the next start or drain.
// Both must deliver every transfer at the same time, to within the
// picosecond roundings the flow model makes at each re-plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "net/maxmin.h"
#include "net_fixture.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

struct Job {
  Transfer transfer;
  sim::Time start;
};

// Delivery times in seconds: drain (fluid, exact to double precision) plus
// the route's latency.
std::vector<double> reference_times(const topo::Pod& pod, const std::vector<Job>& jobs) {
  const size_t n = jobs.size();
  std::vector<std::vector<topo::LinkId>> routes(n);
  std::vector<double> start_s(n), remaining(n), done(n, -1.0);
  for (size_t i = 0; i < n; ++i) {
    routes[i] = topo::route(pod, jobs[i].transfer.src, jobs[i].transfer.dst);
    start_s[i] = jobs[i].start.to_s();
    remaining[i] = static_cast<double>(jobs[i].transfer.bytes);
    if (routes[i].empty() || remaining[i] == 0)
      done[i] = start_s[i];
  }
  std::vector<double> rate(n, 0.0);
  double now = 0;
  MaxMinSolver solver;
  for (;;) {
    // Rates of every flow active now, solved from scratch.
    std::vector<size_t> active;
    MaxMinProblem problem;
    std::vector<uint32_t> local(pod.links().size(), std::numeric_limits<uint32_t>::max());
    for (size_t i = 0; i < n; ++i) {
      if (done[i] >= 0 || start_s[i] > now)
        continue;
      active.push_back(i);
      for (const topo::LinkId id : routes[i]) {
        if (local[id] == std::numeric_limits<uint32_t>::max()) {
          local[id] = problem.add_link(static_cast<double>(pod.link(id).bandwidth.bytes_per_s()));
        }
        problem.push_link(local[id]);
      }
      problem.end_flow();
    }
    std::vector<double> rates;
    if (!active.empty())
      solver.solve(problem, rates);
    // The next instant: a start or a drain, whichever comes first.
    double next = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < n; ++i) {
      if (done[i] < 0 && start_s[i] > now)
        next = std::min(next, start_s[i]);
    }
    for (size_t k = 0; k < active.size(); ++k)
      next = std::min(next, now + remaining[active[k]] / rates[k]);
    if (next == std::numeric_limits<double>::infinity())
      break;
    for (size_t k = 0; k < active.size(); ++k) {
      const size_t i = active[k];
      const double drains_at = now + remaining[i] / rates[k];
      if (drains_at <= next) {  // this flow is (one of) the next to drain
        remaining[i] = 0;
        done[i] = drains_at;
      } else {
        remaining[i] -= rates[k] * (next - now);
      }
    }
    now = next;
  }
  std::vector<double> times(n);
  for (size_t i = 0; i < n; ++i)
    times[i] = done[i] + static_cast<double>(routes[i].size()) * kHop.to_s();
  return times;
}

// Deterministic mixes on a 4x4 torus: many transfers start at the same
// instants (batched solves), others alone on their links (planned straight to
// delivery) until someone joins them, before or after their drain.
std::vector<Job> mix(uint64_t seed, int count) {
  std::vector<Job> jobs;
  uint64_t x = seed;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    return (x >> 33) % mod;
  };
  for (int i = 0; i < count; ++i) {
    const auto src = static_cast<topo::ChipId>(next(16));
    const auto dst = static_cast<topo::ChipId>(next(16));
    const uint64_t bytes = (1 + next(16)) * 64 * 1024 + next(4096);
    // Starts on a coarse grid of 10 us, so that several share an instant.
    const sim::Time start = sim::Time::us(static_cast<int64_t>(10 * next(12)));
    jobs.push_back(Job{transfer(src, dst, bytes), start});
  }
  return jobs;
}

TEST(FlowReference, MatchesAFromScratchFluidSimulation) {
  const topo::Pod torus = topo::Pod(pod_spec({{4, true}, {4, true}}));
  Options options;
  options.model = Model::kFlow;
  for (const uint64_t seed : {1u, 2u, 3u, 4u}) {
    const std::vector<Job> jobs = mix(seed, 60);
    std::vector<Transfer> transfers;
    std::vector<sim::Time> starts;
    for (const Job& j : jobs) {
      transfers.push_back(j.transfer);
      starts.push_back(j.start);
    }
    const RunResult r = run_all(torus, options, transfers, starts);
    const std::vector<double> expected = reference_times(torus, jobs);
    for (size_t i = 0; i < jobs.size(); ++i) {
      // 1 ns: the flow model rounds each re-planned drain up to a picosecond,
      // a few hundred times at most here; any wrong rate would be off by
      // microseconds.
      EXPECT_NEAR(r.times[i].to_s(), expected[i], 1e-9)
          << "seed " << seed << ", transfer " << i << " from " << jobs[i].transfer.src << " to "
          << jobs[i].transfer.dst;
    }
  }
}

}  // namespace
}  // namespace podsim::net::testing
