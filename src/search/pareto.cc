#include "search/pareto.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace podsim::search {
namespace {

// Indices by latency, then throughput (higher first), then index.
std::vector<size_t> by_latency(const std::vector<Objectives>& p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (p[a].latency != p[b].latency)
      return p[a].latency < p[b].latency;
    if (p[a].throughput != p[b].throughput)
      return p[a].throughput > p[b].throughput;
    return a < b;
  });
  return order;
}

}  // namespace

std::vector<size_t> pareto_frontier(const std::vector<Objectives>& points) {
  const std::vector<size_t> order = by_latency(points);
  std::vector<size_t> out;
  bool any_before = false;
  double best_before = 0;  // highest throughput at a strictly lower latency
  for (size_t i = 0; i < order.size();) {
    // One group of equal latency; its first point has the group's highest throughput.
    size_t end = i;
    while (end < order.size() && points[order[end]].latency == points[order[i]].latency)
      ++end;
    const double group_best = points[order[i]].throughput;
    for (size_t k = i; k < end; ++k) {
      const double t = points[order[k]].throughput;
      const bool beaten_before = any_before && best_before >= t;
      const bool beaten_here = group_best > t;
      if (!beaten_before && !beaten_here)
        out.push_back(order[k]);
    }
    best_before = any_before ? std::max(best_before, group_best) : group_best;
    any_before = true;
    i = end;
  }
  return out;
}

std::vector<bool> beaten_beyond_error(const std::vector<Objectives>& estimates,
                                      const std::vector<Objectives>& exact, double epsilon) {
  if (!(epsilon >= 0))
    throw std::invalid_argument("beaten_beyond_error: epsilon must be >= 0");
  const double f = 1 + epsilon;
  const std::vector<size_t> order = by_latency(exact);
  // prefix_best[k]: highest throughput among exact[order[0..k]].
  std::vector<double> prefix_best(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const double t = exact[order[k]].throughput;
    prefix_best[k] = k == 0 ? t : std::max(prefix_best[k - 1], t);
  }
  std::vector<bool> out(estimates.size(), false);
  for (size_t i = 0; i < estimates.size(); ++i) {
    const Objectives& p = estimates[i];
    // The exact points q with latency(q) < latency(p) / f are a prefix of `order`.
    const auto end = std::partition_point(
        order.begin(), order.end(), [&](size_t q) { return exact[q].latency < p.latency / f; });
    const auto n = static_cast<size_t>(end - order.begin());
    out[i] = n > 0 && prefix_best[n - 1] > p.throughput * f;
  }
  return out;
}

}  // namespace podsim::search
