// What each pattern asks of a member of a lane (plan.h lists the patterns):
// the steps it sends, the receipts and deliveries it waits for, whom an
// all-to-all step goes to, and what a step must have received first.
#include <algorithm>

#include "coll/executor.h"
#include "coll/internal/ring_math.h"
#include "topo/routing.h"

namespace podsim::coll {

using internal::mod;

CollectiveRun::Role CollectiveRun::role(uint32_t lane, topo::ChipId chip) const {
  const Phase& ph = phase_of(lane);
  Role r;
  if (ph.pattern == Pattern::kSend) {
    const SendTable& t = send_tables_[lanes_[lane].sends];
    r.end_step = t.begin[chip + 1] - t.begin[chip];
    r.expect_recv = t.incoming[chip];
    r.expect_delivered = r.end_step;
    return r;
  }
  const Lane& ln = lane_of(lane);
  const GroupSet& gs = plan_->group_sets[ln.group_set];
  const auto& group = gs.groups[gs.group_of[chip]];
  const auto n = static_cast<uint32_t>(group.size());
  const uint32_t p = gs.position[chip];
  const int d = ln.direction;
  if (n <= 1) {
    return r;
  }
  switch (ph.pattern) {
    case Pattern::kRing:
      r.end_step = ln.steps;
      r.expect_recv = ln.steps;
      break;
    case Pattern::kLineGather: {
      const uint32_t q = d > 0 ? p : n - 1 - p;
      r.end_step = q <= n - 2 ? q + 1 : 0;
      r.expect_recv = q;
      break;
    }
    case Pattern::kLineScatter: {
      const uint32_t q = d > 0 ? p : n - 1 - p;
      r.first_step = q;
      r.end_step = q <= n - 2 ? n - 1 : q;
      r.expect_recv = q >= 1 ? n - q : 0;
      break;
    }
    case Pattern::kDirect:
      // A block to a chip exactly opposite on an even ring goes half each way
      // round, as two transfers.
      r.end_step = n - 1;
      if (!ph.direct_ties_in.empty()) {  // worked out by lower()
        r.expect_recv = n - 1 + ph.direct_ties_in[chip];
        r.expect_delivered = n - 1 + ph.direct_ties_out[chip];
        return r;
      }
      for (const topo::ChipId other : group) {
        if (other != chip) {
          r.expect_recv += topo::route_has_tie(pod_, other, chip) ? 2 : 1;
          r.expect_delivered += topo::route_has_tie(pod_, chip, other) ? 2 : 1;
        }
      }
      return r;
    case Pattern::kChain: {
      // Only chips on the root's lines of the later levels take part.
      for (size_t k = ln.level + 1; k < ph.levels.size(); ++k) {
        const ChainLevel& later = ph.levels[k];
        if (later.by_dim && pod_.coord(chip, later.dim) != later.root) {
          return r;
        }
      }
      const uint32_t root = ph.levels[ln.level].root;
      // Distance from the root along this lane, and how far the lane reaches.
      const uint32_t reach = !ln.wraps       ? (d > 0 ? n - 1 - root : root)
                             : ln.whole_ring ? n - 1
                                             : (d > 0 ? n / 2 : (n - 1) / 2);
      const int64_t k64 = ln.wraps ? mod((static_cast<int64_t>(p) - root) * d, n)
                                   : (static_cast<int64_t>(p) - root) * d;
      if (k64 < 0 || k64 > reach) {
        break;
      }
      const auto k = static_cast<uint32_t>(k64);
      r.end_step = k < reach ? ph.pieces : 0;
      r.expect_recv = k >= 1 ? ph.pieces : 0;
      break;
    }
    case Pattern::kShift: {
      const int64_t to = static_cast<int64_t>(p) + ln.shift;
      const int64_t from = static_cast<int64_t>(p) - ln.shift;
      const bool sends = ln.wraps || (to >= 0 && to < n);
      const bool receives = ln.wraps || (from >= 0 && from < n);
      const bool self = ln.wraps && mod(to, n) == p;
      r.end_step = sends && !self ? 1 : 0;
      r.expect_recv = receives && !self ? 1 : 0;
      break;
    }
    case Pattern::kSend:
      break;
  }
  r.expect_delivered = r.end_step - std::min(r.first_step, r.end_step);
  return r;
}

std::pair<uint32_t, uint32_t> CollectiveRun::phase_lanes(uint32_t lane) const {
  const LaneInfo& li = lanes_[lane];
  const uint32_t first = lane_index_[li.share][li.phase];
  return {first, first + static_cast<uint32_t>(phase_of(lane).lanes.size())};
}

uint32_t CollectiveRun::needed_receipts(uint32_t lane, topo::ChipId chip, uint32_t step) const {
  switch (lanes_[lane].pattern) {
    case Pattern::kRing:
    case Pattern::kLineGather:
      return step;
    case Pattern::kLineScatter: {
      // Position q sends steps q..N-2, each forwarding the predecessor's
      // previous step; position 0 starts the partial sums.
      const GroupSet& gs = group_set_of(lane);
      const auto n = static_cast<uint32_t>(gs.groups[gs.group_of[chip]].size());
      const uint32_t pos = gs.position[chip];
      const uint32_t q = lane_of(lane).direction > 0 ? pos : n - 1 - pos;
      return q == 0 ? 0 : step - q + 1;
    }
    case Pattern::kChain: {
      // Pieces reach a chip on one lane of the phase (the chain it sits on at
      // the first level that reaches it) and leave it on the lanes of the
      // levels it roots: piece `step` may go once it has arrived. The root,
      // which expects nothing, holds every piece.
      const auto [first, end] = phase_lanes(lane);
      uint32_t expected = 0;
      for (uint32_t l = first; l < end; ++l) {
        expected += state(l, chip).expect_recv;
      }
      return expected == 0 ? 0 : step + 1;
    }
    case Pattern::kDirect:
    case Pattern::kShift:
    case Pattern::kSend:
      return 0;
  }
  return 0;
}

uint32_t CollectiveRun::received(uint32_t lane, topo::ChipId chip) const {
  if (lanes_[lane].pattern != Pattern::kChain) {
    return state(lane, chip).received;
  }
  // A broadcast piece counts whichever lane of the phase brought it.
  const auto [first, end] = phase_lanes(lane);
  uint32_t total = 0;
  for (uint32_t l = first; l < end; ++l) {
    total += state(l, chip).received;
  }
  return total;
}

}  // namespace podsim::coll
