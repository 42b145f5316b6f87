#include "topo/routing.h"

#include <algorithm>
#include <string>

#include "topo/ici_bfs.h"

namespace podsim::topo {
namespace {

void check_chips(const Pod& pod, ChipId src, ChipId dst) {
  if (src >= pod.chip_count() || dst >= pod.chip_count()) {
    throw std::out_of_range("route: chip " + std::to_string(std::max(src, dst)) +
                            " outside a pod of " + std::to_string(pod.chip_count()) + " chips");
  }
}

// Walks the dimension-ordered route within one slice, calling emit(LinkId) per
// hop. Returns false when the walk cannot reach dst: a failed link on the way,
// or a twisted wrap that shifted a dimension already routed.
template <typename Emit>
bool walk_dimension_ordered(const Pod& pod, ChipId src, ChipId dst, TieBreak tie, Emit&& emit) {
  const Shape& shape = pod.shape();
  ChipId at = src;
  for (uint32_t dim = 0; dim < pod.dim_count(); ++dim) {
    const uint32_t size = shape.dim_size(dim);
    const uint32_t from = shape.coord(at, dim);
    const uint32_t to = shape.coord(dst, dim);
    if (from == to)
      continue;
    int direction = to > from ? +1 : -1;
    uint32_t steps = to > from ? to - from : from - to;
    if (pod.wraparound(dim)) {
      const uint32_t up = (to + size - from) % size;  // hops going +
      const uint32_t down = size - up;
      direction = up < down ? +1 : up > down ? -1 : (tie == TieBreak::kPlus ? +1 : -1);
      steps = std::min(up, down);
    }
    for (; steps > 0; --steps) {
      const auto id = pod.link_from(at, dim, direction);
      if (!id)
        return false;
      emit(*id);
      at = pod.link(*id).dst;
    }
  }
  return at == dst;
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
  if (walk_dimension_ordered(pod, src, dst, tie, [&out](LinkId id) { out.push_back(id); }))
    return;
  out.resize(start);
  const std::vector<LinkId> detour = shortest_route(pod, src, dst);
  out.insert(out.end(), detour.begin(), detour.end());
}

std::vector<LinkId> route(const Pod& pod, ChipId src, ChipId dst, TieBreak tie) {
  std::vector<LinkId> out;
  route_into(pod, src, dst, out, tie);
  return out;
}

bool route_has_tie(const Pod& pod, ChipId src, ChipId dst) {
  check_chips(pod, src, dst);
  if (pod.slice_of(src) != pod.slice_of(dst)) {
    return false;
  }
  const Shape& shape = pod.shape();
  for (uint32_t dim = 0; dim < pod.dim_count(); ++dim) {
    const uint32_t size = shape.dim_size(dim);
    const uint32_t up = (shape.coord(dst, dim) + size - shape.coord(src, dim)) % size;
    if (pod.wraparound(dim) && up != 0 && 2 * up == size) {
      return true;
    }
  }
  return false;
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
  if (walk_dimension_ordered(pod, src, dst, TieBreak::kPlus, [&count](LinkId) { ++count; }))
    return count;
  return static_cast<uint32_t>(shortest_route(pod, src, dst).size());
}

}  // namespace podsim::topo
