// Dimension-ordered routes as plans (internal to the topo layer).
//
// A DOR route within a slice is a signed hop count per dimension, walked one
// dimension at a time. On a plain torus each count is the shorter way round.
// On a twisted torus the count along a twisted dimension d is a displacement
// t = delta + m * n_d (delta = dst_d - src_d, n_d the size, m the number of
// times the walk crosses d's wrap, signed): every crossing also moves each of
// d's shift dimensions by its offset, so the counts left on those dimensions
// depend on m. DorPlan holds the chosen m (and t) of the first
// kMaxJointTwisted twisted dimensions, chosen jointly for the fewest total
// hops over m in -2..2 with |t| < 2 n_d (at most 5^3 = 125 combinations, each
// O(slots x shifted dimensions) after an O(dims x twists) set-up); further
// twisted dimensions take the shorter way. The counts on the other dimensions
// follow from where the twisted walks land.
//
// The walk visits the twisted dimensions first, in index order, then the
// others in index order (canonical_order()); other orders are for multipath.
//
// Why the result is a shortest path: when no twist shifts along a twisted
// dimension, the slice is the Cayley graph of Z^D / L, L spanned by
// n_d e_d - sum(offset e_shift) for twisted d and n_e e_e for the rest, so the
// distance is the minimum over lattice points of an L1 norm — exactly the
// minimum over m of the cost above, provided the optimal m is in range. It
// is whenever 2 x offset = 0 modulo the shift dimension (offset half of it, as
// on every k x k x 2k and k x 2k x 2k slice): m then matters only modulo 2,
// and for each parity the smallest |t| is in (-2n, 2n). Other offsets may
// need more rounds than the range allows (3 x 100 with offset 40: three
// rounds of x, 9 hops, shift y by 20), more than 3 twisted dimensions are not
// searched jointly, and a shift dimension without wraparound breaks the group
// structure: routes are then valid walks, not always shortest ones.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "topo/pod.h"
#include "topo/routing.h"

namespace podsim::topo::detail {

inline constexpr uint32_t kMaxJointTwisted = 3;

struct DorPlan {
  uint32_t slots = 0;                             // twisted dimensions chosen jointly
  std::array<uint32_t, kMaxJointTwisted> dim{};   // in index order
  std::array<int32_t, kMaxJointTwisted> wraps{};  // m: wrap crossings, + for the + wrap
  std::array<int64_t, kMaxJointTwisted> steps{};  // t: signed hops along dim
  TieBreak tie = TieBreak::kPlus;                 // untwisted dimension exactly half way round

  friend bool operator==(const DorPlan&, const DorPlan&) = default;
};

// The first and the last plan of fewest hops in the canonical order of
// options: twisted dimensions lexicographically in index order, each by m
// (so t) descending; an untwisted antipodal dimension + before -. The two
// are equal unless some option ties. Precondition: src and dst in one slice.
struct DorChoice {
  DorPlan plus;
  DorPlan minus;
};
DorChoice choose_plan(const Pod& pod, ChipId src, ChipId dst);

// Hops from `from` to `to` along `dim` ignoring twists: the shorter way round
// a ring (`tie` decides exactly half way round), straight along a line. O(1).
inline int64_t plain_steps(const Pod& pod, uint32_t dim, int64_t from, int64_t to, TieBreak tie) {
  if (!pod.wraparound(dim))
    return to - from;
  const int64_t n = pod.dim_size(dim);
  const int64_t up = ((to - from) % n + n) % n;  // hops going +
  const int64_t down = n - up;
  if (up == 0)
    return 0;
  if (up != down)
    return up < down ? up : -down;
  return tie == TieBreak::kPlus ? up : -down;
}

// Signed hops the plan takes along `dim`. O(twists).
int64_t plan_steps(const Pod& pod, const DorPlan& plan, ChipId src, ChipId dst, uint32_t dim);

// Twisted dimensions in index order, then the others in index order.
std::vector<uint32_t> canonical_order(const Pod& pod);

// True when some twist shifts along a twisted dimension (a chain, only from
// specs built in code: the loader rejects it). Plans then estimate where walks
// land and a walk may miss dst. O(twists^2).
bool has_twist_chain(const Pod& pod);

// Takes `steps` signed hops along `dim` from `at` (updated), calling
// emit(LinkId) per hop; false when a link is missing. O(|steps|).
template <typename Emit>
bool walk_dim(const Pod& pod, int64_t steps, uint32_t dim, ChipId& at, Emit& emit) {
  const int direction = steps > 0 ? +1 : -1;
  for (int64_t i = steps > 0 ? steps : -steps; i > 0; --i) {
    const auto id = pod.link_from(at, dim, direction);
    if (!id)
      return false;
    emit(*id);
    at = pod.link(*id).dst;
  }
  return true;
}

// Walks `plan` from src along the dimensions of `order`, each once. Returns
// false when a link is missing or the walk does not end at dst.
// O(hops + dims x twists).
template <typename Emit>
bool walk_plan(const Pod& pod, const DorPlan& plan, ChipId src, ChipId dst,
               std::span<const uint32_t> order, Emit&& emit) {
  ChipId at = src;
  for (const uint32_t dim : order) {
    if (!walk_dim(pod, plan_steps(pod, plan, src, dst, dim), dim, at, emit))
      return false;
  }
  return at == dst;
}

// The same in canonical_order(), without building the order. O(hops + dims x twists).
template <typename Emit>
bool walk_plan_canonical(const Pod& pod, const DorPlan& plan, ChipId src, ChipId dst, Emit&& emit) {
  ChipId at = src;
  if (!pod.has_twists()) {  // the hot plain case: index order, no twist look-ups
    for (uint32_t dim = 0; dim < pod.dim_count(); ++dim) {
      const int64_t steps =
          plain_steps(pod, dim, pod.coord(src, dim), pod.coord(dst, dim), plan.tie);
      if (!walk_dim(pod, steps, dim, at, emit))
        return false;
    }
    return at == dst;
  }
  for (const bool twisted : {true, false}) {
    for (uint32_t dim = 0; dim < pod.dim_count(); ++dim) {
      if (pod.twisted(dim) != twisted)
        continue;
      if (!walk_dim(pod, plan_steps(pod, plan, src, dst, dim), dim, at, emit))
        return false;
    }
  }
  return at == dst;
}

}  // namespace podsim::topo::detail
