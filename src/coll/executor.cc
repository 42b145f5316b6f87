#include "coll/executor.h"

#include <cassert>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "coll/internal/ring_math.h"
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
// kShort: a ring lane's short step, of Lane::short_bytes.
enum Part : uint64_t { kWhole = 0, kPlusHalf = 1, kMinusHalf = 2, kShort = 3 };

uint64_t make_tag(uint32_t lane, Part part, topo::ChipId src, topo::ChipId dst) {
  return (uint64_t{lane} << kLaneShift) | (uint64_t{part} << (2 * kChipBits)) |
         (uint64_t{src} << kChipBits) | dst;
}

uint64_t part_bytes(uint64_t chunk, uint64_t short_chunk, Part part) {
  switch (part) {
    case kPlusHalf:
      return chunk / 2;
    case kMinusHalf:
      return chunk - chunk / 2;
    case kShort:
      return short_chunk;
    case kWhole:
      break;
  }
  return chunk;
}

}  // namespace

ExecutorOptions executor_options(const topo::Pod& pod) {
  ExecutorOptions o;
  o.reduce_bandwidth = pod.spec().chip.hbm_bandwidth;
  o.step_sync = pod.spec().calibration.ring_step_overhead;
  return o;
}

CollectiveRun::CollectiveRun(const topo::Pod& pod, net::Network& network, Plan plan,
                             ExecutorOptions options, std::span<const topo::ChipId> joiners)
    : CollectiveRun(pod, network, plan, nullptr, options, joiners, std::move(plan)) {}

CollectiveRun::CollectiveRun(const topo::Pod& pod, net::Network& network, const Plan& plan,
                             std::shared_ptr<RouteTables> routes, ExecutorOptions options,
                             std::span<const topo::ChipId> joiners)
    : CollectiveRun(pod, network, plan, std::move(routes), options, joiners, std::nullopt) {}

CollectiveRun::CollectiveRun(const topo::Pod& pod, net::Network& network, const Plan& plan,
                             std::shared_ptr<RouteTables> routes, ExecutorOptions options,
                             std::span<const topo::ChipId> joiners, std::optional<Plan> owned)
    : pod_(pod),
      network_(network),
      owned_plan_(std::move(owned)),
      plan_(owned_plan_ ? &*owned_plan_ : &plan),
      options_(options),
      chip_count_(pod.chip_count()),
      routes_(routes ? std::move(routes) : std::make_shared<RouteTables>()) {
  if (chip_count_ > (uint32_t{1} << kChipBits)) {
    throw std::invalid_argument("CollectiveRun: pod too large for 20-bit chip ids");
  }
  if (options_.classes != nullptr) {
    if (joiners.empty()) {
      joiners = options_.classes->reps();
    }
    for (const topo::ChipId c : joiners) {
      if (options_.classes->rep(c) != c) {
        throw std::logic_error("CollectiveRun: a symmetric run's joiners must be representatives");
      }
    }
    participants_ = static_cast<uint32_t>(joiners.size());
  }
  if (!joiners.empty() && routes_->slot_of.empty()) {
    // The first run over these joiners numbers them (shared tables keep it).
    routes_->slot_of.assign(chip_count_, RouteTables::kNoSlot);
    for (const topo::ChipId c : joiners) {
      routes_->slot_of.at(c) = 0;
    }
    for (topo::ChipId c = 0; c < chip_count_; ++c) {
      if (routes_->slot_of[c] != RouteTables::kNoSlot) {
        routes_->slot_of[c] = routes_->slots++;
      }
    }
  } else if (joiners.empty() && routes_->slots == 0) {
    routes_->slots = chip_count_;
  }
  slots_ = routes_->slots;
  slot_of_ = routes_->slot_of.empty() ? nullptr : routes_->slot_of.data();
  build_lanes();
  states_.resize(lanes_.size() * slots_);
  phase_at_.assign(plan_->shares.size() * slots_, 0);
  lanes_left_.assign(plan_->shares.size() * slots_, 0);
  shares_left_.assign(slots_, static_cast<uint16_t>(plan_->shares.size()));
  joined_.assign(slots_, 0);
  chip_end_.assign(slots_, sim::Time::zero());
  if (options_.count_link_bytes) {
    link_bytes_ = net::ZeroedArray<uint64_t>(pod.links().size());
  }
  if (options_.compute_reduction && options_.reduce_bandwidth.is_zero()) {
    throw std::invalid_argument("CollectiveRun: compute_reduction needs a reduce bandwidth");
  }
}

void CollectiveRun::build_lanes() {
  lane_index_.resize(plan_->shares.size());
  for (uint32_t s = 0; s < plan_->shares.size(); ++s) {
    for (uint32_t p = 0; p < plan_->shares[s].phases.size(); ++p) {
      const Phase& ph = plan_->shares[s].phases[p];
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
        li.short_step = lane.short_step;
        li.short_bytes = lane.short_bytes;
        li.receipt_delay = lane.receipt_delay;
        li.reduces = ph.reduces;
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

void CollectiveRun::start(sim::Simulation& sim) {
  for (topo::ChipId c = 0; c < chip_count_; ++c) {
    if (may_join(c)) {
      join(sim, c);
    }
  }
}

void CollectiveRun::join(sim::Simulation& sim, topo::ChipId chip) {
  if (!may_join(chip)) {
    throw std::logic_error("CollectiveRun: chip " + std::to_string(chip) +
                           " joined but was not among the joiners named at construction");
  }
  if (joined_[slot(chip)] != 0) {
    throw std::logic_error("CollectiveRun: chip " + std::to_string(chip) + " joined twice");
  }
  joined_[slot(chip)] = 1;
  if (!link_bytes_.empty()) {
    joined_chips_.push_back(chip);  // count_peer_link_bytes() visits them
  }
  if (!started_) {
    started_ = true;
    start_ = sim.now();
  }
  if (plan_->shares.empty()) {
    chip_finished(sim, chip);
    return;
  }
  for (uint32_t s = 0; s < plan_->shares.size(); ++s) {
    enter_phase(sim, chip, s);
  }
}

void CollectiveRun::enter_phase(sim::Simulation& sim, topo::ChipId chip, uint32_t share) {
  const size_t sc = share_slot(share, chip);
  const Phase& ph = plan_->shares[share].phases[phase_at_[sc]];
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
  const size_t sc = share_slot(li.share, chip);
  if (joined_[slot(chip)] == 0 || phase_at_[sc] != li.phase) {
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
      const Peer& peer = routes_->peers[static_cast<size_t>(li.peers) * slots_ + slot(chip)];
      send(sim, lane, chip, peer.chip, step == li.short_step ? kShort : kWhole, peer_route(peer));
      continue;
    }
    // An all-to-all step, staggered: everyone starts with its next
    // neighbour, so no chip is the first target of all the others.
    const GroupSet& gs = group_set_of(lane);
    const auto& group = gs.groups[gs.group_of[chip]];
    const uint32_t to = internal::mod(static_cast<int64_t>(gs.position[chip]) + 1 + step,
                                      static_cast<uint32_t>(group.size()));
    const topo::ChipId dst = group[to];
    const DirectRoutes& r = direct_routes(lane, chip, to);
    if (r.minus != 0) {
      send(sim, lane, chip, dst, kPlusHalf, routes_->direct_routes[r.plus - 1]);
      send(sim, lane, chip, dst, kMinusHalf, routes_->direct_routes[r.minus - 1]);
    } else {
      send(sim, lane, chip, dst, kWhole, routes_->direct_routes[r.plus - 1]);
    }
  }
}

void CollectiveRun::send(sim::Simulation& sim, uint32_t lane, topo::ChipId src, topo::ChipId dst,
                         int part, std::span<const topo::LinkId> route) {
  const auto p = static_cast<Part>(part);
  const uint64_t bytes = part_bytes(lanes_[lane].chunk_bytes, lanes_[lane].short_bytes, p);
  // A lane with a peer table is counted when the run is done
  // (count_peer_link_bytes); an all-to-all's routes vary by step.
  if (!link_bytes_.empty() && lanes_[lane].peers == kNoPeers) {
    for (const topo::LinkId id : route) {
      link_bytes_[id] += bytes;
    }
  }
  ++state(lane, src).outstanding;
  transfers_started_ += weight(src);
  bytes_sent_ += bytes * weight(src);
  network_.start(sim, net::Transfer{src, dst, bytes, route, options_.classes != nullptr}, *this,
                 make_tag(lane, p, src, dst));
}

void CollectiveRun::send_path(sim::Simulation& sim, uint32_t lane, uint32_t path) {
  const SendPath& p = phase_of(lane).paths[path];
  if (!link_bytes_.empty()) {
    for (const topo::LinkId id : p.route) {
      link_bytes_[id] += p.bytes;
    }
  }
  ++state(lane, p.src).outstanding;
  transfers_started_ += weight(p.src);
  bytes_sent_ += p.bytes * weight(p.src);
  network_.start(sim, net::Transfer{p.src, p.dst, p.bytes, p.route}, *this,
                 (uint64_t{lane} << kLaneShift) | path);
}

void CollectiveRun::delivered(sim::Simulation& sim, uint64_t tag) {
  const auto lane = static_cast<uint32_t>(tag >> kLaneShift);
  topo::ChipId src = 0;
  topo::ChipId dst = 0;
  uint64_t bytes = 0;
  if (lanes_[lane].sends != kNoPeers) {
    const SendPath& p = phase_of(lane).paths[tag & kLowMask];
    src = p.src;
    dst = p.dst;
    bytes = p.bytes;
  } else {
    const auto part = static_cast<Part>((tag >> (2 * kChipBits)) & ((1U << kPartBits) - 1));
    src = static_cast<topo::ChipId>((tag >> kChipBits) & kChipMask);
    dst = class_of(static_cast<topo::ChipId>(tag & kChipMask));
    bytes = part_bytes(lanes_[lane].chunk_bytes, lanes_[lane].short_bytes, part);
  }
  transfers_delivered_ += weight(src);
  bytes_received_ += bytes * weight(src);

  MemberState& s = state(lane, src);
  --s.outstanding;
  ++s.delivered;
  try_send(sim, lane, src);
  check_lane_done(sim, lane, src);

  sim::Time later = lanes_[lane].receipt_delay + options_.step_sync;
  if (options_.compute_reduction && lanes_[lane].reduces) {
    // The receiver reduces the chunk into its buffer before it counts.
    later += sim::transfer_time(3 * bytes, options_.reduce_bandwidth);
  }
  if (later > sim::Time::zero()) {
    sim.schedule_in(later, *this, (uint64_t{lane} << kLaneShift) | dst);
    return;
  }
  receipt(sim, lane, dst);
}

void CollectiveRun::prefetch(uint64_t tag) const {
  const auto lane = static_cast<uint32_t>(tag >> kLaneShift);
  if (slot_of_ != nullptr || options_.classes != nullptr || lane >= lanes_.size()) {
    return;
  }
  const LaneInfo& li = lanes_[lane];
  if (li.sends != kNoPeers) {
    return;
  }
  for (const auto chip : {static_cast<topo::ChipId>((tag >> kChipBits) & kChipMask),
                          static_cast<topo::ChipId>(tag & kChipMask)}) {
    if (chip >= chip_count_) {
      continue;
    }
    __builtin_prefetch(&states_[static_cast<size_t>(lane) * slots_ + chip]);
    __builtin_prefetch(&phase_at_[static_cast<size_t>(li.share) * slots_ + chip]);
    if (li.peers != kNoPeers) {
      __builtin_prefetch(&routes_->peers[static_cast<size_t>(li.peers) * slots_ + chip]);
    }
  }
}

void CollectiveRun::handle(sim::Simulation& sim, uint64_t payload) {
  receipt(sim, static_cast<uint32_t>(payload >> kLaneShift),
          static_cast<topo::ChipId>(payload & kChipMask));
}

void CollectiveRun::receipt(sim::Simulation& sim, uint32_t lane, topo::ChipId chip) {
  if (slot_of_ != nullptr && slot_of_[chip] == RouteTables::kNoSlot) {
    return;  // a chip that never joins: nothing reads its counters
  }
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
  const size_t sc = share_slot(ref.share, chip);
  if (joined_[slot(chip)] == 0 || phase_at_[sc] != ref.phase) {
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
  if (phase_at_[sc] < plan_->shares[ref.share].phases.size()) {
    enter_phase(sim, chip, ref.share);
    return;
  }
  if (--shares_left_[slot(chip)] == 0) {
    chip_finished(sim, chip);
  }
}

void CollectiveRun::chip_finished(sim::Simulation& sim, topo::ChipId chip) {
  chip_end_[slot(chip)] = sim.now();
  ++chips_done_;
  if (on_chip_done_) {
    on_chip_done_(sim, chip);
  }
  if (chips_done_ < expected_chips()) {
    return;
  }
  end_ = sim.now();
  count_peer_link_bytes();
  if (on_done_) {
    // From an event, so the caller never sees its callback re-entrantly.
    sim.schedule_in(sim::Time::zero(), [this](sim::Simulation& s) { on_done_(s); });
  }
}

// A member of a lane with a peer table sends every step to the same peer
// over the same route: the chunk, or the short chunk at the lane's short
// step. So the bytes it put on each link of that route are the sum over
// the steps it sent, [its role's first step, next_step), added here once,
// rather than per transfer and hop as send() did: a random write per hop
// into a pod-sized array, about a tenth of the samples of a full 32x32x32
// all-reduce (though the run gained less: the link record's first read
// then took most of that wait). The sums are of whole numbers, so the
// counts are the same.
void CollectiveRun::count_peer_link_bytes() {
  if (link_bytes_.empty()) {
    return;
  }
  for (uint32_t lane = 0; lane < lanes_.size(); ++lane) {
    const LaneInfo& li = lanes_[lane];
    if (li.peers == kNoPeers) {
      continue;
    }
    for (const topo::ChipId chip : joined_chips_) {
      const uint32_t first = role(lane, chip).first_step;
      const uint32_t next = state(lane, chip).next_step;
      if (next <= first) {
        continue;
      }
      uint64_t bytes = uint64_t{next - first} * li.chunk_bytes;
      if (li.short_step >= first && li.short_step < next) {
        bytes = bytes - li.chunk_bytes + li.short_bytes;
      }
      const Peer& peer = routes_->peers[static_cast<size_t>(li.peers) * slots_ + slot(chip)];
      for (const topo::LinkId id : peer_route(peer)) {
        link_bytes_[id] += bytes;
      }
    }
  }
}

}  // namespace podsim::coll
