// Plays a coll::Plan on a network: the per-chip state machine of every lane.
//
// Rules for a member of a lane (see plan.h for the patterns):
//  - it sends step s once it has entered the phase, has received what step s
//    forwards (the predecessor's step s-1; for a broadcast chain, piece s
//    from whichever lane of the phase brings pieces to this chip), and -- on
//    serial patterns -- its own step s-1 has been delivered (one transfer in
//    flight per lane, as a DMA engine streaming a ring does);
//  - it is done with the phase when all its receipts have arrived and all its
//    sends have been delivered; it enters the next phase of a share when
//    every lane of the current one is done.
// State is a few counters per (lane, chip) in flat vectors: O(lanes x chips)
// memory, O(1) work per delivered transfer plus the network's own (O(lanes of
// the phase) for a broadcast tree, at most 2 per level). Every pattern but
// all-to-all and send sends each step of a lane to the same chip, so the
// constructor resolves those targets and routes once, into peer tables shared
// by lanes with the same group set, direction and routing: O(tables x chips
// x hops), and the hot path does no route or group lookups. An all-to-all
// works its routes out as it first sends them, into a flat table per group
// set indexed by (joiner, position of the target in the group): no hashing.
// Sends index their paths by source chip once, in the constructor.
// executor.cc holds the
// state machine, executor_roles.cc each pattern's rules, executor_tables.cc
// the tables.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "coll/plan.h"
#include "coll/run.h"
#include "net/network.h"
#include "net/zeroed_array.h"
#include "sim/event.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/pod.h"
#include "topo/routing.h"
#include "topo/symmetry.h"

namespace podsim::coll {

struct ExecutorOptions {
  // Cost reductions on the chip: each reduced byte reads two operands and
  // writes one result through HBM at `reduce_bandwidth`. Off by default.
  bool compute_reduction = false;
  sim::Bandwidth reduce_bandwidth;
  // A symmetric run (engine/symmetry.h): only the classes' representatives
  // join; each transfer stands for one per chip of its sender's class, its
  // route is given over link classes (net::Transfer::over_classes) and its
  // receipt counts at the representative of the receiver's class. The
  // classes must keep the plan (coll/symmetry.h) and outlive the run.
  // Counts and link bytes are then of the whole pod (link bytes on each
  // class's representative link: the figure of every link of the class).
  const topo::SymmetryClasses* classes = nullptr;
  // Synchronisation between steps (the calibration's ring_step_overhead):
  // every transfer counts at its receiver this long after its last byte
  // lands, so a member's next step, which waits for that receipt, starts
  // that much later: once per step of the longest chain of steps (N / 2 on
  // a bidirectional ring of N, N - 1 on a line).
  sim::Time step_sync;
  // Count the bytes each link carried for link_bytes(). A serving step
  // turns it off: it reads the network's link statistics instead, and the
  // count costs a pod-sized array per run, a write per hop per all-to-all
  // transfer, and one per hop per member and lane at the end of the run.
  bool count_link_bytes = true;
};

// What a pod gives every run: its chips' HBM bandwidth for reductions and
// its calibration's step synchronisation.
ExecutorOptions executor_options(const topo::Pod& pod);

// The routes a run works out for its joiners: where each member of a lane
// sends and the links there (peer tables), and an all-to-all's routes as
// they are first needed. They depend on the plan, the joiners and the
// classes only, so the runs of one plan over the same joiners and options
// may share them (the engine keeps one per plan and stage: a step runs each
// collective once per layer). Built and read by CollectiveRun only.
struct RouteTables {
  // Where a chip sends in a pattern whose every step goes to one chip (all
  // but kDirect): that chip and the route there, a slice of peer_links.
  struct Peer {
    topo::ChipId chip = 0;
    uint32_t route_begin = 0;
    uint32_t route_size = 0;
  };
  struct PeerKey {
    uint32_t group_set = 0;
    int64_t offset = 0;
    bool wraps = false;
    int32_t walk_dim = kNoWalk;
    friend bool operator==(const PeerKey&, const PeerKey&) = default;
  };
  // An all-to-all member's routes to the member at one position of its group.
  struct DirectRoutes {
    uint32_t plus = 0;   // 1 + index into direct_routes; 0: not worked out yet
    uint32_t minus = 0;  // the other half's, when the route has a tie; else 0
  };
  // Peer tables are built in the first run's constructor and never grow
  // after it (the network holds spans into peer_links).
  std::vector<PeerKey> peer_keys;  // one per table
  std::vector<Peer> peers;         // table x chip
  std::vector<topo::LinkId> peer_links;
  // Moving the outer vector moves each route's buffer, not its elements, so
  // spans handed out stay valid as routes are added.
  std::vector<std::vector<topo::LinkId>> direct_routes;
  // Per group set of an all-to-all: (joiner slot x group position) ->
  // routes; empty until a lane of the set sends. Slots number the chips
  // that may join (every chip when any may).
  std::vector<std::vector<DirectRoutes>> direct_table;
  std::vector<uint32_t> direct_width;  // per group set: its largest group
  // chip -> its slot among the joiners (in chip order), kNoSlot for a chip
  // that will not join; empty when every chip may join (slot = chip).
  static constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> slot_of;
  uint32_t slots = 0;  // joiners: the chips with a slot
};

class CollectiveRun final : public Run, public net::TransferSink, public sim::EventHandler {
 public:
  // `pod`, `network` and the simulation must outlive the run.
  // `joiners`, when given, are the only chips that will join: routes are
  // worked out for them alone (a folded step joins one replica of a large
  // pod), and any other chip that joins is a logic_error.
  CollectiveRun(const topo::Pod& pod, net::Network& network, Plan plan,
                ExecutorOptions options = {}, std::span<const topo::ChipId> joiners = {});
  // The same over a plan it does not copy (`plan` must outlive the run),
  // with `routes` shared with the plan's other runs over the same joiners
  // and options: filled by the first, read by the others. O(lanes x chips)
  // of state per run still; the routes' O(tables x chips x hops) once.
  CollectiveRun(const topo::Pod& pod, net::Network& network, const Plan& plan,
                std::shared_ptr<RouteTables> routes, ExecutorOptions options = {},
                std::span<const topo::ChipId> joiners = {});

  CollectiveRun(const CollectiveRun&) = delete;
  CollectiveRun& operator=(const CollectiveRun&) = delete;

  // Called once when every chip is done (from an event, never re-entrantly).
  void set_on_done(std::function<void(sim::Simulation&)> fn) override { on_done_ = std::move(fn); }
  // Called as each chip finishes its part, synchronously, at the simulated
  // time it finishes (the engine moves that chip on to its next instruction).
  void set_on_chip_done(std::function<void(sim::Simulation&, topo::ChipId)> fn) override {
    on_chip_done_ = std::move(fn);
  }
  // How many chips will join (default: every chip of the pod). A run over a
  // subset -- one pipeline stage, one simulated replica -- is done when that
  // many have finished; the groups of chips that never join stay idle.
  void set_participants(uint32_t chips) override { participants_ = chips; }

  // Every chip joins now.
  void start(sim::Simulation& sim);
  // One chip reaches the collective in its program. Each chip joins once.
  void join(sim::Simulation& sim, topo::ChipId chip) override;

  bool done() const { return chips_done_ == expected_chips(); }
  sim::Time start_time() const { return start_; }
  sim::Time end_time() const { return end_; }
  sim::Time chip_done_time(topo::ChipId chip) const { return chip_end_[slot(class_of(chip))]; }

  // Of the whole pod, in a symmetric run too.
  uint64_t transfers_started() const { return transfers_started_; }
  uint64_t transfers_delivered() const { return transfers_delivered_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t bytes_received() const { return bytes_received_; }
  // Bytes of this collective that crossed each link (indexed by LinkId); in
  // a symmetric run on the classes' representative links only. Empty unless
  // ExecutorOptions::count_link_bytes. Complete once the run is done():
  // the lanes whose members always send to one peer are counted then.
  std::span<const uint64_t> link_bytes() const { return link_bytes_.span(); }

  void delivered(sim::Simulation& sim, uint64_t tag) override;
  // Loads the sender's and the receiver's counters and next peers (a full
  // run's only: elsewhere the state is small and stays in cache).
  void prefetch(uint64_t tag) const override;
  void handle(sim::Simulation& sim, uint64_t payload) override;

 private:
  CollectiveRun(const topo::Pod& pod, net::Network& network, const Plan& plan,
                std::shared_ptr<RouteTables> routes, ExecutorOptions options,
                std::span<const topo::ChipId> joiners, std::optional<Plan> owned);

  static constexpr uint32_t kNoPeers = std::numeric_limits<uint32_t>::max();
  // What the hot path needs of a lane, flattened out of the plan (share ->
  // phase -> lane) into one record per lane id.
  struct LaneInfo {
    uint32_t share = 0;
    uint32_t phase = 0;
    uint32_t lane = 0;  // index within the phase
    Pattern pattern = Pattern::kRing;
    bool serial = true;  // one transfer in flight at a time
    uint64_t chunk_bytes = 0;
    uint32_t short_step = kNoShortStep;  // kRing: the step that carries short_bytes
    uint64_t short_bytes = 0;
    uint32_t peers = kNoPeers;  // index of its peer table; kNoPeers for kDirect and kSend
    uint32_t sends = kNoPeers;  // kSend: index of its send table
    sim::Time receipt_delay;    // Lane::receipt_delay
    bool reduces = false;       // Phase::reduces
  };
  // kSend: the phase's paths by source chip (CSR), and how many end at each chip.
  struct SendTable {
    std::vector<uint32_t> begin;     // chip -> first index into order; chips + 1 entries
    std::vector<uint32_t> order;     // path indices grouped by source chip
    std::vector<uint32_t> incoming;  // chip -> paths ending there
  };
  using Peer = RouteTables::Peer;
  using DirectRoutes = RouteTables::DirectRoutes;
  // Counters of one chip in one lane. The expectations are filled in when the
  // chip enters the phase; receipts may be counted before that.
  struct MemberState {
    uint32_t next_step = 0;
    uint32_t end_step = 0;
    uint32_t outstanding = 0;
    uint32_t received = 0;
    uint32_t delivered = 0;
    uint32_t expect_recv = 0;
    uint32_t expect_delivered = 0;
    bool done = false;
  };
  // What a member of a lane does, derived from its position.
  struct Role {
    uint32_t first_step = 0;
    uint32_t end_step = 0;  // exclusive
    uint32_t expect_recv = 0;
    uint32_t expect_delivered = 0;  // transfers sent (a split all-to-all block counts twice)
  };

  void build_lanes();
  // One peer table per distinct (group set, offset along the group); offset
  // is the lane's direction, or the shift of kShift. O(chips x hops) each.
  // Off the end of a line (wraps false) there is no peer and no route.
  uint32_t peer_table(uint32_t group_set, int64_t offset, bool wraps, int32_t walk_dim);
  uint32_t send_table(const Phase& ph);
  std::span<const topo::LinkId> peer_route(const Peer& p) const {
    return {routes_->peer_links.data() + p.route_begin, p.route_size};
  }
  Role role(uint32_t lane, topo::ChipId chip) const;
  uint32_t needed_receipts(uint32_t lane, topo::ChipId chip, uint32_t step) const;
  // What a member has received that counts for its next send: its own
  // lane's receipts, or for a broadcast chain those of every lane of the phase.
  uint32_t received(uint32_t lane, topo::ChipId chip) const;
  // kChain: the lanes of `lane`'s phase, [first, end).
  std::pair<uint32_t, uint32_t> phase_lanes(uint32_t lane) const;

  void enter_phase(sim::Simulation& sim, topo::ChipId chip, uint32_t share);
  void try_send(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void receipt(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void check_lane_done(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void chip_finished(sim::Simulation& sim, topo::ChipId chip);
  // An all-to-all member's routes to the member at position `to` of its
  // group: worked out on first use, then looked up by index.
  const DirectRoutes& direct_routes(uint32_t lane, topo::ChipId src, uint32_t to);
  // part: the whole chunk, or one half of a block split between the two
  // ways round (see executor.cc).
  void send(sim::Simulation& sim, uint32_t lane, topo::ChipId src, topo::ChipId dst, int part,
            std::span<const topo::LinkId> route);
  void send_path(sim::Simulation& sim, uint32_t lane, uint32_t path);
  // Adds the link bytes of the lanes with a peer table, from the steps each
  // member sent (see executor.cc).
  void count_peer_link_bytes();

  // A joiner's index into the per-member state: state is kept for the chips
  // that may join only (one replica of a folded step, one chip per class of
  // a symmetric run), not for the whole pod.
  uint32_t slot(topo::ChipId chip) const { return slot_of_ == nullptr ? chip : slot_of_[chip]; }
  bool may_join(topo::ChipId chip) const {
    return chip < chip_count_ && slot(chip) != RouteTables::kNoSlot;
  }
  MemberState& state(uint32_t lane, topo::ChipId chip) {
    return states_[static_cast<size_t>(lane) * slots_ + slot(chip)];
  }
  const MemberState& state(uint32_t lane, topo::ChipId chip) const {
    return states_[static_cast<size_t>(lane) * slots_ + slot(chip)];
  }
  size_t share_slot(uint32_t share, topo::ChipId chip) const {
    return static_cast<size_t>(share) * slots_ + slot(chip);
  }
  const Phase& phase_of(uint32_t lane) const {
    return plan_->shares[lanes_[lane].share].phases[lanes_[lane].phase];
  }
  const GroupSet& group_set_of(uint32_t lane) const {
    return plan_->group_sets[lane_of(lane).group_set];
  }
  const Lane& lane_of(uint32_t lane) const { return phase_of(lane).lanes[lanes_[lane].lane]; }

  // The chip that stands for `chip`: its class's representative in a
  // symmetric run, itself otherwise.
  topo::ChipId class_of(topo::ChipId chip) const {
    return options_.classes == nullptr ? chip : options_.classes->rep(chip);
  }
  // The chips a transfer from `src` stands for: its class's size in a
  // symmetric run (each chip of the class sends one like it), else 1.
  uint64_t weight(topo::ChipId src) const {
    return options_.classes == nullptr ? 1 : options_.classes->class_size(src);
  }
  // A route as the network is given it: over link classes in a symmetric run.
  void to_classes(std::vector<topo::LinkId>& route) const;

  const topo::Pod& pod_;
  net::Network& network_;
  std::optional<Plan> owned_plan_;  // the plan, when the run was given a copy
  const Plan* plan_ = nullptr;
  ExecutorOptions options_;
  uint32_t chip_count_ = 0;

  std::vector<LaneInfo> lanes_;                    // every (share, phase, lane)
  std::vector<std::vector<uint32_t>> lane_index_;  // [share][phase] -> first lane id
  uint32_t slots_ = 0;                             // joiners (RouteTables::slots)
  const uint32_t* slot_of_ = nullptr;              // routes_->slot_of; null: slot = chip
  std::vector<MemberState> states_;                // lane x slot
  std::vector<uint16_t> phase_at_;                 // share x slot: current phase
  std::vector<uint16_t> lanes_left_;               // share x slot: lanes of it not done
  std::vector<uint16_t> shares_left_;              // slot
  std::vector<uint8_t> joined_;                    // slot
  std::vector<topo::ChipId> joined_chips_;         // in join order, when link bytes are counted
  std::vector<sim::Time> chip_end_;                // slot
  uint32_t chips_done_ = 0;
  uint32_t participants_ = 0;  // 0: every chip
  uint32_t expected_chips() const { return participants_ != 0 ? participants_ : chip_count_; }
  std::function<void(sim::Simulation&, topo::ChipId)> on_chip_done_;

  // Routes, kept for the whole run because the network holds spans into
  // them (executor_tables.cc); possibly shared with the plan's other runs.
  std::shared_ptr<RouteTables> routes_;
  std::vector<SendTable> send_tables_;

  net::ZeroedArray<uint64_t> link_bytes_;
  uint64_t transfers_started_ = 0;
  uint64_t transfers_delivered_ = 0;
  uint64_t bytes_sent_ = 0;
  uint64_t bytes_received_ = 0;
  sim::Time start_;
  sim::Time end_;
  bool started_ = false;
  std::function<void(sim::Simulation&)> on_done_;
};

}  // namespace podsim::coll
