#include "coll/symmetry.h"

#include "coll/internal/ring_math.h"
#include "topo/symmetry.h"

namespace podsim::coll {
namespace {

using internal::mod;

// How `map` moves a group set: every group onto a group, its members moved
// round by one amount per group. ok: it does; rotates: some amount is not 0.
struct GroupMove {
  bool ok = true;
  bool rotates = false;
};

GroupMove move_of(const GroupSet& gs, const std::vector<topo::ChipId>& map) {
  GroupMove m;
  if (gs.group_of.size() != map.size()) {
    m.ok = false;
    return m;
  }
  for (const auto& group : gs.groups) {
    if (group.empty()) {
      continue;
    }
    const auto n = static_cast<uint32_t>(group.size());
    const uint32_t to = gs.group_of[map[group[0]]];
    if (gs.groups[to].size() != n) {
      m.ok = false;
      return m;
    }
    const uint32_t shift = gs.position[map[group[0]]];
    for (uint32_t p = 0; p < n; ++p) {
      const topo::ChipId image = map[group[p]];
      if (gs.group_of[image] != to || gs.position[image] != mod(int64_t{p} + shift, n)) {
        m.ok = false;
        return m;
      }
    }
    m.rotates = m.rotates || shift != 0;
  }
  return m;
}

// Patterns whose every member does the same thing wherever it stands.
bool same_at_every_place(const Phase& ph, const Lane& lane) {
  switch (ph.pattern) {
    case Pattern::kRing:
    case Pattern::kShift:
      return lane.wraps;
    case Pattern::kDirect:
      return true;
    case Pattern::kLineGather:
    case Pattern::kLineScatter:
    case Pattern::kChain:
    case Pattern::kSend:
      return false;
  }
  return false;
}

bool keeps_chain_roots(const topo::Pod& pod, const Phase& ph,
                       const std::vector<topo::ChipId>& map) {
  for (const ChainLevel& level : ph.levels) {
    if (!level.by_dim) {
      continue;  // a snake level: its group set must not rotate (checked by the caller)
    }
    for (topo::ChipId c = 0; c < map.size(); ++c) {
      const bool kept = level.dim == topo::kSliceDim
                            ? pod.slice_of(map[c]) == pod.slice_of(c)
                            : pod.coord(map[c], level.dim) == pod.coord(c, level.dim);
      if (!kept) {
        return false;
      }
    }
  }
  return true;
}

bool same_ties(const std::vector<uint32_t>& ties, const std::vector<topo::ChipId>& map) {
  if (ties.empty()) {
    return true;
  }
  for (topo::ChipId c = 0; c < map.size(); ++c) {
    if (ties[map[c]] != ties[c]) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool keeps_plan(const topo::Pod& pod, const Plan& plan, const std::vector<topo::ChipId>& map) {
  std::vector<std::optional<GroupMove>> moves(plan.group_sets.size());
  for (const Share& share : plan.shares) {
    for (const Phase& ph : share.phases) {
      if (ph.pattern == Pattern::kSend) {
        return false;
      }
      if (ph.pattern == Pattern::kChain && !keeps_chain_roots(pod, ph, map)) {
        return false;
      }
      if (ph.pattern == Pattern::kDirect &&
          (!same_ties(ph.direct_ties_in, map) || !same_ties(ph.direct_ties_out, map))) {
        return false;
      }
      for (const Lane& lane : ph.lanes) {
        if (lane.group_set >= plan.group_sets.size()) {
          return false;
        }
        auto& move = moves[lane.group_set];
        if (!move) {
          move = move_of(plan.group_sets[lane.group_set], map);
        }
        if (!move->ok || (move->rotates && !same_at_every_place(ph, lane))) {
          return false;
        }
      }
    }
  }
  return true;
}

uint32_t plan_period(const topo::Pod& pod, const Plan& plan, uint32_t dim,
                     const std::vector<topo::ChipId>& unit) {
  const uint32_t n = pod.dim_size(dim);
  for (uint32_t k = 1; k < n; ++k) {
    if (n % k == 0 && keeps_plan(pod, plan, topo::power(unit, k))) {
      return k;
    }
  }
  return n;
}

}  // namespace podsim::coll
