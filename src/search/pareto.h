// The Pareto frontier of throughput (maximised) against latency (minimised),
// and the rule that prunes points before the expensive simulation.
//
// Both take points in a caller's order and return indices into it, so
// results do not depend on how the points were computed (threads, ranks).
#pragma once

#include <cstddef>
#include <vector>

namespace podsim::search {

struct Objectives {
  double throughput = 0;  // tokens/s per chip: higher is better
  double latency = 0;     // microseconds: lower is better
};

// Indices of the points no other point dominates (at least as good in both,
// better in one). Points with equal objectives do not dominate each other,
// so all of them are kept. Ordered by latency, then throughput (higher
// first), then index. O(n log n).
std::vector<size_t> pareto_frontier(const std::vector<Objectives>& points);

// Pruning on estimates that are never more than a relative `epsilon` slower
// than the truth (estimate.latency <= (1 + epsilon) x true latency, with
// throughput = tokens / latency), against points whose true objectives are
// known (`exact`): true for each estimated point p that some exact point q
// beats beyond that error in both objectives at once,
//   q.latency < p.latency / (1 + e) and q.throughput > p.throughput x (1 + e).
// Then q's true objectives dominate p's strictly, so p is not on the true
// frontier (docs/search.md). Estimates that are too fast (optimistic) only
// keep points, never drop one. epsilon >= 0. O((n + m) log m).
std::vector<bool> beaten_beyond_error(const std::vector<Objectives>& estimates,
                                      const std::vector<Objectives>& exact, double epsilon);

}  // namespace podsim::search
