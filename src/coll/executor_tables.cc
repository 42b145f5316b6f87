// CollectiveRun's tables, built once: where each member of a lane sends
// (peer tables, shared by lanes with the same group set, offset and
// routing), a send phase's paths by source chip, and the all-to-all routes
// looked up as they are first needed.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "coll/executor.h"
#include "coll/internal/ring_math.h"
#include "topo/routing.h"

namespace podsim::coll {

using internal::mod;

uint32_t CollectiveRun::peer_table(uint32_t group_set, int64_t offset, bool wraps,
                                   int32_t walk_dim) {
  RouteTables& r = *routes_;
  const RouteTables::PeerKey key{group_set, offset, wraps, walk_dim};
  for (uint32_t t = 0; t < r.peer_keys.size(); ++t) {
    if (r.peer_keys[t] == key) {
      return t;  // built by this run or by an earlier run sharing the tables
    }
  }
  const GroupSet& gs = plan_->group_sets[group_set];
  std::vector<topo::LinkId> route;
  for (topo::ChipId c = 0; c < chip_count_; ++c) {
    if (!may_join(c)) {
      continue;  // no slot: a chip that will not join has no table entry
    }
    const auto& group = gs.groups[gs.group_of[c]];
    const auto n = static_cast<uint32_t>(group.size());
    const int64_t to = static_cast<int64_t>(gs.position[c]) + offset;
    if (!wraps && (to < 0 || to >= n)) {
      // Off the end of a line: role() gives such a member no step that way.
      r.peers.push_back(Peer{c, 0, 0});
      continue;
    }
    const topo::ChipId peer = group[mod(to, n)];
    route.clear();
    // Along one dimension the transfer walks that dimension's links the way
    // the lane goes, so a ring over a twisted dimension closes through the
    // twisted wrap (its true cycle) rather than back along the line.
    std::optional<std::vector<topo::LinkId>> walk;
    if (walk_dim != kNoWalk && peer != c) {
      walk = topo::walk_along(pod_, c, peer, static_cast<uint32_t>(walk_dim), offset > 0 ? +1 : -1);
    }
    if (walk) {
      route = std::move(*walk);
    } else {
      topo::route_into(pod_, c, peer, route);
    }
    to_classes(route);
    r.peers.push_back(Peer{peer, static_cast<uint32_t>(r.peer_links.size()),
                           static_cast<uint32_t>(route.size())});
    r.peer_links.insert(r.peer_links.end(), route.begin(), route.end());
  }
  r.peer_keys.push_back(key);
  return static_cast<uint32_t>(r.peer_keys.size() - 1);
}

uint32_t CollectiveRun::send_table(const Phase& ph) {
  if (options_.classes != nullptr) {
    throw std::invalid_argument("CollectiveRun: sends between pairs have no symmetric run");
  }
  SendTable t;
  t.begin.assign(chip_count_ + 1, 0);
  t.incoming.assign(chip_count_, 0);
  for (const SendPath& p : ph.paths) {
    if (p.src >= chip_count_ || p.dst >= chip_count_) {
      throw std::invalid_argument("CollectiveRun: a send path names a chip outside the pod");
    }
    ++t.begin[p.src + 1];
    ++t.incoming[p.dst];
  }
  for (topo::ChipId c = 0; c < chip_count_; ++c) {
    t.begin[c + 1] += t.begin[c];
  }
  t.order.assign(ph.paths.size(), 0);
  std::vector<uint32_t> next(t.begin.begin(), t.begin.end() - 1);
  for (uint32_t i = 0; i < ph.paths.size(); ++i) {
    t.order[next[ph.paths[i].src]++] = i;
  }
  send_tables_.push_back(std::move(t));
  return static_cast<uint32_t>(send_tables_.size() - 1);
}

const CollectiveRun::DirectRoutes& CollectiveRun::direct_routes(uint32_t lane, topo::ChipId src,
                                                                uint32_t to) {
  RouteTables& rt = *routes_;
  const uint32_t set = lane_of(lane).group_set;
  if (rt.direct_table.size() <= set) {
    rt.direct_table.resize(plan_->group_sets.size());
    rt.direct_width.assign(plan_->group_sets.size(), 0);
  }
  std::vector<DirectRoutes>& table = rt.direct_table[set];
  if (table.empty()) {
    const GroupSet& gs = plan_->group_sets[set];
    uint32_t width = 1;
    for (const auto& group : gs.groups) {
      width = std::max(width, static_cast<uint32_t>(group.size()));
    }
    rt.direct_width[set] = width;
    table.resize(static_cast<size_t>(slots_) * width);
  }
  DirectRoutes& r = table[static_cast<size_t>(slot(src)) * rt.direct_width[set] + to];
  if (r.plus == 0) {
    const GroupSet& gs = plan_->group_sets[set];
    const topo::ChipId dst = gs.groups[gs.group_of[src]][to];
    // A block to a chip exactly opposite on an even ring goes half each way
    // round.
    auto add = [&](topo::TieBreak tie) {
      rt.direct_routes.push_back(topo::route(pod_, src, dst, tie));
      to_classes(rt.direct_routes.back());
      return static_cast<uint32_t>(rt.direct_routes.size());
    };
    r.plus = add(topo::TieBreak::kPlus);
    if (topo::route_has_tie(pod_, src, dst)) {
      r.minus = add(topo::TieBreak::kMinus);
    }
  }
  return r;
}

void CollectiveRun::to_classes(std::vector<topo::LinkId>& route) const {
  if (options_.classes != nullptr) {
    for (topo::LinkId& id : route) {
      id = options_.classes->rep_link(id);
    }
  }
}

}  // namespace podsim::coll
