#include "coll/executor.h"

#include <cassert>
#include <limits>
#include <stdexcept>

#include "topo/routing.h"

namespace podsim::coll {
namespace {

// Tags pack (lane, part, src, dst): chip ids fit in 20 bits (the loader caps
// pods at 2^20 chips), the part of a split block in 2, lanes in the last 22.
constexpr int kChipBits = 20;
constexpr int kLaneShift = 2 * kChipBits + 2;
constexpr uint64_t kChipMask = (uint64_t{1} << kChipBits) - 1;
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
        LaneInfo li;
        li.share = s;
        li.phase = p;
        li.lane = l;
        li.pattern = ph.pattern;
        li.serial = ph.pattern != Pattern::kDirect && ph.pattern != Pattern::kShift;
        li.chunk_bytes = ph.lanes[l].chunk_bytes;
        if (ph.pattern != Pattern::kDirect) {
          const int64_t offset = ph.pattern == Pattern::kShift ? ph.shift : ph.lanes[l].direction;
          li.peers = peer_table(ph.group_set, offset, ph.wraps);
        }
        lanes_.push_back(li);
      }
    }
  }
}

uint32_t CollectiveRun::peer_table(uint32_t group_set, int64_t offset, bool wraps) {
  const PeerKey key{group_set, offset, wraps};
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
    topo::route_into(pod_, c, peer, route);
    peers_.push_back(
        Peer{peer, static_cast<uint32_t>(peer_links_.size()), static_cast<uint32_t>(route.size())});
    peer_links_.insert(peer_links_.end(), route.begin(), route.end());
  }
  peer_keys_.push_back(key);
  return static_cast<uint32_t>(peer_keys_.size() - 1);
}

CollectiveRun::Role CollectiveRun::role(uint32_t lane, topo::ChipId chip) const {
  const Phase& ph = phase_of(lane);
  const GroupSet& gs = plan_.group_sets[ph.group_set];
  const auto n = static_cast<uint32_t>(gs.groups[gs.group_of[chip]].size());
  const uint32_t p = gs.position[chip];
  const int d = lane_of(lane).direction;
  Role r;
  if (n <= 1) {
    return r;
  }
  const auto& group = gs.groups[gs.group_of[chip]];
  switch (ph.pattern) {
    case Pattern::kRing:
      r.end_step = lane_of(lane).steps;
      r.expect_recv = lane_of(lane).steps;
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
      // Distance from the root along this lane, and how far the lane reaches.
      const uint32_t reach =
          ph.wraps ? (d > 0 ? n / 2 : (n - 1) / 2) : (d > 0 ? n - 1 - ph.root : ph.root);
      const int64_t k64 = ph.wraps ? mod((static_cast<int64_t>(p) - ph.root) * d, n)
                                   : (static_cast<int64_t>(p) - ph.root) * d;
      if (k64 < 0 || k64 > reach) {
        break;
      }
      const auto k = static_cast<uint32_t>(k64);
      r.end_step = k < reach ? ph.pieces : 0;
      r.expect_recv = k >= 1 ? ph.pieces : 0;
      break;
    }
    case Pattern::kShift: {
      const int64_t to = static_cast<int64_t>(p) + ph.shift;
      const int64_t from = static_cast<int64_t>(p) - ph.shift;
      const bool sends = ph.wraps || (to >= 0 && to < n);
      const bool receives = ph.wraps || (from >= 0 && from < n);
      const bool self = ph.wraps && mod(to, n) == p;
      r.end_step = sends && !self ? 1 : 0;
      r.expect_recv = receives && !self ? 1 : 0;
      break;
    }
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
    case Pattern::kChain:
      return states_[static_cast<size_t>(lane) * chip_count_ + chip].expect_recv == 0 ? 0
                                                                                      : step + 1;
    case Pattern::kDirect:
    case Pattern::kShift:
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
  for (uint32_t l = first; l < first + nlanes; ++l) {
    const Role r = role(l, chip);
    MemberState& st = state(l, chip);
    st.next_step = r.first_step;
    st.end_step = r.end_step;
    st.expect_recv = r.expect_recv;
    st.expect_delivered = r.expect_delivered;
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
  while (!st.done && st.next_step < st.end_step) {
    if (li.serial && st.outstanding > 0) {
      return;
    }
    if (st.received < needed_receipts(lane, chip, st.next_step)) {
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

void CollectiveRun::delivered(sim::Simulation& sim, uint64_t tag) {
  const auto lane = static_cast<uint32_t>(tag >> kLaneShift);
  const auto part = static_cast<Part>((tag >> (2 * kChipBits)) & 3);
  const auto src = static_cast<topo::ChipId>((tag >> kChipBits) & kChipMask);
  const auto dst = static_cast<topo::ChipId>(tag & kChipMask);
  ++transfers_delivered_;
  bytes_received_ += part_bytes(lanes_[lane].chunk_bytes, part);

  MemberState& s = state(lane, src);
  --s.outstanding;
  ++s.delivered;
  try_send(sim, lane, src);
  check_lane_done(sim, lane, src);

  if (options_.compute_reduction && phase_of(lane).reduces) {
    // The receiver reduces the chunk into its buffer before it counts.
    const sim::Time t =
        sim::transfer_time(3 * lane_of(lane).chunk_bytes, options_.reduce_bandwidth);
    sim.schedule_in(t, *this, (uint64_t{lane} << kLaneShift) | dst);
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
