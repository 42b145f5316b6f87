#include "topo/routing.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "topo/dor_plan.h"
#include "topo/ici_bfs.h"

namespace podsim::topo {
namespace {

void check_chips(const Pod& pod, ChipId src, ChipId dst) {
  if (src >= pod.chip_count() || dst >= pod.chip_count()) {
    throw std::out_of_range("route: chip " + std::to_string(std::max(src, dst)) +
                            " outside a pod of " + std::to_string(pod.chip_count()) + " chips");
  }
}

const detail::DorPlan& pick(const detail::DorChoice& choice, TieBreak tie) {
  return tie == TieBreak::kPlus ? choice.plus : choice.minus;
}

void check_dim(const Pod& pod, uint32_t dim, const char* what) {
  if (dim >= pod.dim_count()) {
    throw std::out_of_range(std::string(what) + ": dimension " + std::to_string(dim) +
                            " outside a pod of " + std::to_string(pod.dim_count()) + " dimensions");
  }
}

}  // namespace

void route_into(const Pod& pod, ChipId src, ChipId dst, std::vector<LinkId>& out, TieBreak tie) {
  check_chips(pod, src, dst);
  if (src == dst)
    return;
  if (pod.slice_of(src) != pod.slice_of(dst)) {
    out.push_back(pod.dcn_up(src));
    out.push_back(pod.dcn_down(dst));
    return;
  }
  const size_t start = out.size();
  const detail::DorChoice choice = detail::choose_plan(pod, src, dst);
  if (detail::walk_plan_canonical(pod, pick(choice, tie), src, dst,
                                  [&out](LinkId id) { out.push_back(id); }))
    return;
  out.resize(start);
  const std::vector<LinkId> detour = shortest_route(pod, src, dst);
  out.insert(out.end(), detour.begin(), detour.end());
}

void visit_routes_from(const Pod& pod, ChipId src, std::span<const ChipId> dsts, TieBreak tie,
                       const std::function<void(ChipId, LinkId)>& visit) {
  std::vector<LinkId> walk;
  detail::BfsTree tree;  // searched on the first walk that meets a failed link
  std::vector<LinkId> back;
  for (const ChipId dst : dsts) {
    check_chips(pod, src, dst);
    if (src == dst) {
      continue;
    }
    if (pod.slice_of(src) != pod.slice_of(dst)) {
      throw std::invalid_argument("visit_routes_from: chip " + std::to_string(dst) +
                                  " is not in the slice of chip " + std::to_string(src));
    }
    walk.clear();
    const detail::DorChoice choice = detail::choose_plan(pod, src, dst);
    if (detail::walk_plan_canonical(pod, pick(choice, tie), src, dst,
                                    [&walk](LinkId id) { walk.push_back(id); })) {
      for (const LinkId id : walk) {
        visit(dst, id);
      }
      continue;
    }
    // As shortest_route(): the path to dst in the search tree from src.
    if (tree.dist.empty()) {
      detail::ici_bfs(pod, src, tree);
    }
    if (tree.dist[dst] == detail::kUnreached) {
      throw NoRoute("no route from chip " + std::to_string(src) + " to chip " +
                    std::to_string(dst) + ": failed links cut slice " +
                    std::to_string(pod.slice_of(src)) + " in two");
    }
    back.clear();
    for (VertexId v = dst; v != src;) {
      back.push_back(tree.pred_link[v]);
      v = pod.link(back.back()).src;
    }
    for (auto it = back.rbegin(); it != back.rend(); ++it) {
      visit(dst, *it);
    }
  }
}

std::vector<LinkId> route(const Pod& pod, ChipId src, ChipId dst, TieBreak tie) {
  std::vector<LinkId> out;
  route_into(pod, src, dst, out, tie);
  return out;
}

bool route_has_tie(const Pod& pod, ChipId src, ChipId dst) {
  check_chips(pod, src, dst);
  if (src == dst || pod.slice_of(src) != pod.slice_of(dst))
    return false;
  const detail::DorChoice choice = detail::choose_plan(pod, src, dst);
  // The plans differ iff their hops differ along some dimension (a slot's
  // wrap count m and its hops t determine each other).
  bool differ = false;
  for (uint32_t d = 0; d < pod.dim_count() && !differ; ++d) {
    differ = detail::plan_steps(pod, choice.plus, src, dst, d) !=
             detail::plan_steps(pod, choice.minus, src, dst, d);
  }
  if (!differ)
    return false;  // the same walk, or the same fallback
  // Different plans give different walks (they part at the first dimension
  // whose hops differ). On a healthy pod without twist chains both arrive.
  if (!pod.has_failed_links() && !detail::has_twist_chain(pod))
    return true;
  auto ignore = [](LinkId) {};
  const bool plus_ok = detail::walk_plan_canonical(pod, choice.plus, src, dst, ignore);
  const bool minus_ok = detail::walk_plan_canonical(pod, choice.minus, src, dst, ignore);
  if (plus_ok == minus_ok)
    return plus_ok;  // two different walks, or shortest_route() twice
  // One route is the other's fallback: compare it with the walk that arrived.
  const std::vector<LinkId> detour = shortest_route(pod, src, dst);
  size_t i = 0;
  bool same = true;
  detail::walk_plan_canonical(pod, plus_ok ? choice.plus : choice.minus, src, dst, [&](LinkId id) {
    same = same && i < detour.size() && detour[i] == id;
    ++i;
  });
  return !(same && i == detour.size());
}

std::vector<LinkId> shortest_route(const Pod& pod, ChipId src, ChipId dst) {
  check_chips(pod, src, dst);
  if (src == dst)
    return {};
  if (pod.slice_of(src) != pod.slice_of(dst))
    return {pod.dcn_up(src), pod.dcn_down(dst)};
  detail::BfsTree tree;
  detail::ici_bfs(pod, src, tree);
  if (tree.dist[dst] == detail::kUnreached) {
    throw NoRoute("no route from chip " + std::to_string(src) + " to chip " + std::to_string(dst) +
                  ": failed links cut slice " + std::to_string(pod.slice_of(src)) + " in two");
  }
  std::vector<LinkId> path(tree.dist[dst]);
  VertexId v = dst;
  for (size_t i = path.size(); i > 0; --i) {
    path[i - 1] = tree.pred_link[v];
    v = pod.link(path[i - 1]).src;
  }
  return path;
}

uint32_t hops(const Pod& pod, ChipId src, ChipId dst) {
  check_chips(pod, src, dst);
  if (src == dst)
    return 0;
  if (pod.slice_of(src) != pod.slice_of(dst))
    return 2;
  uint32_t count = 0;
  const detail::DorChoice choice = detail::choose_plan(pod, src, dst);
  if (detail::walk_plan_canonical(pod, choice.plus, src, dst, [&count](LinkId) { ++count; }))
    return count;
  return static_cast<uint32_t>(shortest_route(pod, src, dst).size());
}

std::optional<std::vector<LinkId>> walk_along(const Pod& pod, ChipId src, ChipId dst, uint32_t dim,
                                              int direction) {
  check_chips(pod, src, dst);
  check_dim(pod, dim, "walk_along");
  if (direction != 1 && direction != -1) {
    throw std::invalid_argument("walk_along: direction must be +1 or -1, got " +
                                std::to_string(direction));
  }
  std::vector<LinkId> path;
  if (src == dst)
    return path;
  if (pod.slice_of(src) != pod.slice_of(dst))
    return std::nullopt;
  ChipId at = src;
  for (uint32_t step = 0; step < pod.shape().chips_per_slice(); ++step) {
    const auto id = pod.link_from(at, dim, direction);
    if (!id)
      return std::nullopt;
    path.push_back(*id);
    at = pod.link(*id).dst;
    if (at == dst)
      return path;
    if (at == src)
      return std::nullopt;
  }
  return std::nullopt;
}

uint32_t cycle_length(const Pod& pod, ChipId chip, uint32_t dim) {
  check_chips(pod, chip, chip);
  check_dim(pod, dim, "cycle_length");
  if (!pod.wraparound(dim))
    return 0;
  // One round (size hops) moves every shift dimension by its summed offset;
  // the cycle closes after the fewest rounds that bring all of them back.
  uint64_t rounds = 1;
  const auto& twists = pod.spec().torus.twists;
  for (size_t i = 0; i < twists.size(); ++i) {
    if (twists[i].dim != dim)
      continue;
    bool first = true;  // sum each shift dimension's offsets once, at its first twist
    for (size_t j = 0; j < i; ++j)
      first = first && !(twists[j].dim == dim && twists[j].shift_dim == twists[i].shift_dim);
    if (!first)
      continue;
    const uint64_t n = pod.dim_size(twists[i].shift_dim);
    uint64_t offset = 0;
    for (size_t j = i; j < twists.size(); ++j) {
      if (twists[j].dim == dim && twists[j].shift_dim == twists[i].shift_dim)
        offset = (offset + twists[j].offset) % n;
    }
    rounds = std::lcm(rounds, n / std::gcd(n, offset));  // gcd(n, 0) = n: order 1
  }
  return static_cast<uint32_t>(rounds * pod.dim_size(dim));
}

}  // namespace podsim::topo
