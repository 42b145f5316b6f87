#include "topo/multipath.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "topo/dor_plan.h"
#include "topo/routing.h"

namespace podsim::topo {
namespace {

// Keeps the routes that are walks ending at dst, repeat no link and share
// none with a route kept before; `used` holds the kept links, sorted.
class DisjointFilter {
 public:
  void offer(const Pod& pod, const detail::DorPlan& plan, ChipId src, ChipId dst,
             std::span<const uint32_t> order) {
    std::vector<LinkId> path;
    if (!detail::walk_plan(pod, plan, src, dst, order, [&path](LinkId id) { path.push_back(id); }))
      return;
    std::vector<LinkId> sorted = path;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return;
    for (const LinkId id : sorted) {
      if (std::binary_search(used_.begin(), used_.end(), id))
        return;
    }
    const auto middle = used_.insert(used_.end(), sorted.begin(), sorted.end());
    std::inplace_merge(used_.begin(), middle, used_.end());
    kept_.push_back(std::move(path));
  }

  std::vector<std::vector<LinkId>> take() { return std::move(kept_); }
  bool empty() const { return kept_.empty(); }

 private:
  std::vector<LinkId> used_;
  std::vector<std::vector<LinkId>> kept_;
};

}  // namespace

std::vector<std::vector<LinkId>> disjoint_routes(const Pod& pod, ChipId src, ChipId dst) {
  // route() checks the ids and handles the cases without a DOR plan.
  if (src == dst || src >= pod.chip_count() || dst >= pod.chip_count() ||
      pod.slice_of(src) != pod.slice_of(dst)) {
    return {route(pod, src, dst)};
  }
  const detail::DorChoice choice = detail::choose_plan(pod, src, dst);
  std::vector<uint32_t> dims;  // D: dimensions with hops, in route()'s order
  for (const uint32_t d : detail::canonical_order(pod)) {
    if (detail::plan_steps(pod, choice.plus, src, dst, d) != 0)
      dims.push_back(d);
  }
  DisjointFilter filter;
  if (dims.size() >= 2) {
    std::vector<uint32_t> order = dims;
    for (size_t r = 0; r < dims.size(); ++r) {
      filter.offer(pod, choice.plus, src, dst, order);
      std::rotate(order.begin(), order.begin() + 1, order.end());
    }
  } else if (route_has_tie(pod, src, dst)) {
    const std::vector<uint32_t> order = detail::canonical_order(pod);
    filter.offer(pod, choice.plus, src, dst, order);
    filter.offer(pod, choice.minus, src, dst, order);
  } else {
    return {route(pod, src, dst)};
  }
  if (filter.empty())
    return {shortest_route(pod, src, dst)};
  return filter.take();
}

}  // namespace podsim::topo
