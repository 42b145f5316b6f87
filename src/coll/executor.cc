#include "coll/executor.h"

#include <cassert>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "topo/routing.h"

namespace podsim::coll {
namespace {

// Tags pack (lane, part, src, dst): chip ids fit in 20 bits (the loader caps
// pods at 2^20 chips), the part of a split block in 3, lanes in the last 21.
// A send's tag is (lane, path index) instead: the path names its chips.
constexpr int kChipBits = 20;
constexpr int kPartBits = 3;
constexpr int kLaneShift = 2 * kChipBits + kPartBits;
constexpr uint64_t kChipMask = (uint64_t{1} << kChipBits) - 1;
constexpr uint64_t kLowMask = (uint64_t{1} << kLaneShift) - 1;
constexpr uint64_t kMaxLanes = uint64_t{1} << (64 - kLaneShift);
enum Part : uint64_t { kWhole = 0, kPlusHalf = 1, kMinusHalf = 2 };

uint64_t make_tag(uint32_t lane, Part part, topo::ChipId src, topo::ChipId dst) {
  return (uint64_t{lane} << kLaneShift) | (uint64_t{part} << (2 * kChipBits)) |
         (uint64_t{src} << kChipBits) | dst;
}

uint64_t part_bytes(uint64_t chunk, Part part) {
  switch (part) {
    case kPlusHalf:
      return chunk / 2;
    case kMinusHalf:
      return chunk - chunk / 2;
    case kWhole:
      break;
  }
  return chunk;
}

uint32_t mod(int64_t a, uint32_t n) {
  const int64_t m = a % static_cast<int64_t>(n);
  return static_cast<uint32_t>(m < 0 ? m + n : m);
}

}  // namespace

CollectiveRun::CollectiveRun(const topo::Pod& pod, net::Network& network, Plan plan,
                             ExecutorOptions options)
    : pod_(pod),
      network_(network),
      plan_(std::move(plan)),
      options_(options),
      chip_count_(pod.chip_count()) {
  if (chip_count_ > (uint32_t{1} << kChipBits)) {
    throw std::invalid_argument("CollectiveRun: pod too large for 20-bit chip ids");
  }
  build_lanes();
  states_.resize(lanes_.size() * chip_count_);
  phase_at_.assign(plan_.shares.size() * chip_count_, 0);
  lanes_left_.assign(plan_.shares.size() * chip_count_, 0);
  shares_left_.assign(chip_count_, static_cast<uint16_t>(plan_.shares.size()));
  joined_.assign(chip_count_, 0);
  chip_end_.assign(chip_count_, sim::Time::zero());
  link_bytes_.assign(pod.links().size(), 0);
  if (options_.compute_reduction && options_.reduce_bandwidth.is_zero()) {
    throw std::invalid_argument("CollectiveRun: compute_reduction needs a reduce bandwidth");
  }
}

void CollectiveRun::build_lanes() {
  lane_index_.resize(plan_.shares.size());
  for (uint32_t s = 0; s < plan_.shares.size(); ++s) {
    for (uint32_t p = 0; p < plan_.shares[s].phases.size(); ++p) {
      const Phase& ph = plan_.shares[s].phases[p];
      lane_index_[s].push_back(static_cast<uint32_t>(lanes_.size()));
      for (uint32_t l = 0; l < ph.lanes.size(); ++l) {
        const Lane& lane = ph.lanes[l];
        LaneInfo li;
        li.share = s;
        li.phase = p;
        li.lane = l;
        li.pattern = ph.pattern;
        li.serial = ph.pattern != Pattern::kDirect && ph.pattern != Pattern::kShift &&
                    ph.pattern != Pattern::kSend;
        li.chunk_bytes = lane.chunk_bytes;
        if (ph.pattern == Pattern::kSend) {
          li.sends = send_table(ph);
        } else if (ph.pattern != Pattern::kDirect) {
          const int64_t offset = ph.pattern == Pattern::kShift ? lane.shift : lane.direction;
          li.peers = peer_table(lane.group_set, offset, lane.wraps, lane.walk_dim);
        }
        lanes_.push_back(li);
      }
    }
  }
  if (lanes_.size() >= kMaxLanes) {
    throw std::invalid_argument("CollectiveRun: plan has too many lanes for the tag layout");
  }
}

uint32_t CollectiveRun::peer_table(uint32_t group_set, int64_t offset, bool wraps,
                                   int32_t walk_dim) {
  const PeerKey key{group_set, offset, wraps, walk_dim};
  for (uint32_t t = 0; t < peer_keys_.size(); ++t) {
    if (peer_keys_[t] == key) {
      return t;
    }
  }
  const GroupSet& gs = plan_.group_sets[group_set];
  std::vector<topo::LinkId> route;
  for (topo::ChipId c = 0; c < chip_count_; ++c) {
    const auto& group = gs.groups[gs.group_of[c]];
    const auto n = static_cast<uint32_t>(group.size());
    const int64_t to = static_cast<int64_t>(gs.position[c]) + offset;
    if (!wraps && (to < 0 || to >= n)) {
      // Off the end of a line: role() gives such a member no step that way.
      peers_.push_back(Peer{c, 0, 0});
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
    peers_.push_back(
        Peer{peer, static_cast<uint32_t>(peer_links_.size()), static_cast<uint32_t>(route.size())});
    peer_links_.insert(peer_links_.end(), route.begin(), route.end());
  }
  peer_keys_.push_back(key);
  return static_cast<uint32_t>(peer_keys_.size() - 1);
}

uint32_t CollectiveRun::send_table(const Phase& ph) {
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
  const GroupSet& gs = plan_.group_sets[ln.group_set];
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
      const uint32_t reach =
          ln.wraps ? (d > 0 ? n / 2 : (n - 1) / 2) : (d > 0 ? n - 1 - root : root);
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

topo::ChipId CollectiveRun::direct_target(uint32_t lane, topo::ChipId chip, uint32_t step) const {
  const GroupSet& gs = group_set_of(lane);
  const auto& group = gs.groups[gs.group_of[chip]];
  const auto n = static_cast<uint32_t>(group.size());
  // Staggered: everyone starts with its next neighbour, so no chip is the
  // first target of all the others.
  return group[mod(static_cast<int64_t>(gs.position[chip]) + 1 + step, n)];
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
        expected += states_[static_cast<size_t>(l) * chip_count_ + chip].expect_recv;
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

std::span<const topo::LinkId> CollectiveRun::direct_route(topo::ChipId src, topo::ChipId dst,
                                                          topo::TieBreak tie) {
  const uint64_t key =
      (uint64_t{tie == topo::TieBreak::kMinus} << 63) | (uint64_t{src} << 32) | dst;
  auto [it, added] =
      direct_route_of_.try_emplace(key, static_cast<uint32_t>(direct_routes_.size()));
  if (added) {
    // Moving the outer vector moves each route's buffer, not its elements, so
    // spans handed out earlier stay valid.
    direct_routes_.push_back(topo::route(pod_, src, dst, tie));
  }
  return direct_routes_[it->second];
}

void CollectiveRun::start(sim::Simulation& sim) {
  for (topo::ChipId c = 0; c < chip_count_; ++c) {
    join(sim, c);
  }
}

void CollectiveRun::join(sim::Simulation& sim, topo::ChipId chip) {
  if (joined_[chip] != 0) {
    throw std::logic_error("CollectiveRun: chip " + std::to_string(chip) + " joined twice");
  }
  joined_[chip] = 1;
  if (!started_) {
    started_ = true;
    start_ = sim.now();
  }
  if (plan_.shares.empty()) {
    chip_finished(sim, chip);
    return;
  }
  for (uint32_t s = 0; s < plan_.shares.size(); ++s) {
    enter_phase(sim, chip, s);
  }
}

void CollectiveRun::enter_phase(sim::Simulation& sim, topo::ChipId chip, uint32_t share) {
  const size_t sc = static_cast<size_t>(share) * chip_count_ + chip;
  const Phase& ph = plan_.shares[share].phases[phase_at_[sc]];
  const uint32_t first = lane_index_[share][phase_at_[sc]];
  const auto nlanes = static_cast<uint32_t>(ph.lanes.size());
  lanes_left_[sc] = static_cast<uint16_t>(nlanes);
  // Every lane's role first: a broadcast chain reads its sibling lanes'.
  for (uint32_t l = first; l < first + nlanes; ++l) {
    const Role r = role(l, chip);
    MemberState& st = state(l, chip);
    st.next_step = r.first_step;
    st.end_step = r.end_step;
    st.expect_recv = r.expect_recv;
    st.expect_delivered = r.expect_delivered;
  }
  for (uint32_t l = first; l < first + nlanes; ++l) {
    try_send(sim, l, chip);
  }
  // A lane with nothing left to wait for finishes now; the last one to finish
  // moves the chip on (re-entering here for the next phase), after which the
  // remaining calls see a different phase and return at once.
  for (uint32_t l = first; l < first + nlanes; ++l) {
    check_lane_done(sim, l, chip);
  }
}

void CollectiveRun::try_send(sim::Simulation& sim, uint32_t lane, topo::ChipId chip) {
  const LaneInfo& li = lanes_[lane];
  const size_t sc = static_cast<size_t>(li.share) * chip_count_ + chip;
  if (joined_[chip] == 0 || phase_at_[sc] != li.phase) {
    return;  // not in this phase yet: receipts wait in the counters
  }
  MemberState& st = state(lane, chip);
  if (li.sends != kNoPeers) {
    // A send's paths all leave at once; each is one transfer.
    const SendTable& t = send_tables_[li.sends];
    while (st.next_step < st.end_step) {
      send_path(sim, lane, t.order[t.begin[chip] + st.next_step++]);
    }
    return;
  }
  while (!st.done && st.next_step < st.end_step) {
    if (li.serial && st.outstanding > 0) {
      return;
    }
    if (received(lane, chip) < needed_receipts(lane, chip, st.next_step)) {
      return;
    }
    const uint32_t step = st.next_step++;
    if (li.peers != kNoPeers) {
      const Peer& peer = peers_[static_cast<size_t>(li.peers) * chip_count_ + chip];
      send(sim, lane, chip, peer.chip, kWhole, peer_route(peer));
      continue;
    }
    const topo::ChipId dst = direct_target(lane, chip, step);
    if (topo::route_has_tie(pod_, chip, dst)) {
      send(sim, lane, chip, dst, kPlusHalf, direct_route(chip, dst, topo::TieBreak::kPlus));
      send(sim, lane, chip, dst, kMinusHalf, direct_route(chip, dst, topo::TieBreak::kMinus));
    } else {
      send(sim, lane, chip, dst, kWhole, direct_route(chip, dst, topo::TieBreak::kPlus));
    }
  }
}

uint32_t CollectiveRun::received(uint32_t lane, topo::ChipId chip) const {
  if (lanes_[lane].pattern != Pattern::kChain) {
    return states_[static_cast<size_t>(lane) * chip_count_ + chip].received;
  }
  // A broadcast piece counts whichever lane of the phase brought it.
  const auto [first, end] = phase_lanes(lane);
  uint32_t total = 0;
  for (uint32_t l = first; l < end; ++l) {
    total += states_[static_cast<size_t>(l) * chip_count_ + chip].received;
  }
  return total;
}

void CollectiveRun::send(sim::Simulation& sim, uint32_t lane, topo::ChipId src, topo::ChipId dst,
                         int part, std::span<const topo::LinkId> route) {
  const auto p = static_cast<Part>(part);
  const uint64_t bytes = part_bytes(lanes_[lane].chunk_bytes, p);
  for (const topo::LinkId id : route) {
    link_bytes_[id] += bytes;
  }
  ++state(lane, src).outstanding;
  ++transfers_started_;
  bytes_sent_ += bytes;
  network_.start(sim, net::Transfer{src, dst, bytes, route}, *this, make_tag(lane, p, src, dst));
}

void CollectiveRun::send_path(sim::Simulation& sim, uint32_t lane, uint32_t path) {
  const SendPath& p = phase_of(lane).paths[path];
  for (const topo::LinkId id : p.route) {
    link_bytes_[id] += p.bytes;
  }
  ++state(lane, p.src).outstanding;
  ++transfers_started_;
  bytes_sent_ += p.bytes;
  network_.start(sim, net::Transfer{p.src, p.dst, p.bytes, p.route}, *this,
                 (uint64_t{lane} << kLaneShift) | path);
}

void CollectiveRun::delivered(sim::Simulation& sim, uint64_t tag) {
  const auto lane = static_cast<uint32_t>(tag >> kLaneShift);
  ++transfers_delivered_;
  topo::ChipId src = 0;
  topo::ChipId dst = 0;
  if (lanes_[lane].sends != kNoPeers) {
    const SendPath& p = phase_of(lane).paths[tag & kLowMask];
    src = p.src;
    dst = p.dst;
    bytes_received_ += p.bytes;
  } else {
    const auto part = static_cast<Part>((tag >> (2 * kChipBits)) & ((1U << kPartBits) - 1));
    src = static_cast<topo::ChipId>((tag >> kChipBits) & kChipMask);
    dst = static_cast<topo::ChipId>(tag & kChipMask);
    bytes_received_ += part_bytes(lanes_[lane].chunk_bytes, part);
  }

  MemberState& s = state(lane, src);
  --s.outstanding;
  ++s.delivered;
  try_send(sim, lane, src);
  check_lane_done(sim, lane, src);

  sim::Time later = lane_of(lane).receipt_delay;
  if (options_.compute_reduction && phase_of(lane).reduces) {
    // The receiver reduces the chunk into its buffer before it counts.
    later += sim::transfer_time(3 * lane_of(lane).chunk_bytes, options_.reduce_bandwidth);
  }
  if (later > sim::Time::zero()) {
    sim.schedule_in(later, *this, (uint64_t{lane} << kLaneShift) | dst);
    return;
  }
  receipt(sim, lane, dst);
}

void CollectiveRun::handle(sim::Simulation& sim, uint64_t payload) {
  receipt(sim, static_cast<uint32_t>(payload >> kLaneShift),
          static_cast<topo::ChipId>(payload & kChipMask));
}

void CollectiveRun::receipt(sim::Simulation& sim, uint32_t lane, topo::ChipId chip) {
  ++state(lane, chip).received;
  if (lanes_[lane].pattern == Pattern::kChain) {
    // The piece may go on along every chain this chip roots. A lane that
    // finishes may move the chip to its next phase; the rest then see that
    // and return at once.
    const auto [first, end] = phase_lanes(lane);
    for (uint32_t l = first; l < end; ++l) {
      try_send(sim, l, chip);
    }
    for (uint32_t l = first; l < end; ++l) {
      check_lane_done(sim, l, chip);
    }
    return;
  }
  try_send(sim, lane, chip);
  check_lane_done(sim, lane, chip);
}

void CollectiveRun::check_lane_done(sim::Simulation& sim, uint32_t lane, topo::ChipId chip) {
  const LaneInfo& ref = lanes_[lane];
  const size_t sc = static_cast<size_t>(ref.share) * chip_count_ + chip;
  if (joined_[chip] == 0 || phase_at_[sc] != ref.phase) {
    return;
  }
  MemberState& st = state(lane, chip);
  if (st.done || st.received < st.expect_recv || st.delivered < st.expect_delivered ||
      st.next_step < st.end_step) {
    return;
  }
  st.done = true;
  if (--lanes_left_[sc] > 0) {
    return;
  }
  ++phase_at_[sc];
  if (phase_at_[sc] < plan_.shares[ref.share].phases.size()) {
    enter_phase(sim, chip, ref.share);
    return;
  }
  if (--shares_left_[chip] == 0) {
    chip_finished(sim, chip);
  }
}

void CollectiveRun::chip_finished(sim::Simulation& sim, topo::ChipId chip) {
  chip_end_[chip] = sim.now();
  ++chips_done_;
  if (on_chip_done_) {
    on_chip_done_(sim, chip);
  }
  if (chips_done_ < expected_chips()) {
    return;
  }
  end_ = sim.now();
  if (on_done_) {
    // From an event, so the caller never sees its callback re-entrantly.
    sim.schedule_in(sim::Time::zero(), [this](sim::Simulation& s) { on_done_(s); });
  }
}

}  // namespace podsim::coll
