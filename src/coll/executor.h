// Plays a coll::Plan on a network: the per-chip state machine of every lane.
//
// Rules for a member of a lane (see plan.h for the patterns):
//  - it sends step s once it has entered the phase, has received what step s
//    forwards (the predecessor's step s-1), and -- on serial patterns -- its
//    own step s-1 has been delivered (one transfer in flight per lane, as a
//    DMA engine streaming a ring does);
//  - it is done with the phase when all its receipts have arrived and all its
//    sends have been delivered; it enters the next phase of a share when
//    every lane of the current one is done.
// State is a few counters per (lane, chip) in flat vectors: O(lanes x chips)
// memory, O(1) work per delivered transfer plus the network's own.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "coll/plan.h"
#include "net/network.h"
#include "sim/event.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/pod.h"
#include "topo/routing.h"

namespace podsim::coll {

struct ExecutorOptions {
  // Cost reductions on the chip: each reduced byte reads two operands and
  // writes one result through HBM at `reduce_bandwidth`. Off by default.
  bool compute_reduction = false;
  sim::Bandwidth reduce_bandwidth;
};

class CollectiveRun final : public net::TransferSink, public sim::EventHandler {
 public:
  // `pod`, `network` and the simulation must outlive the run.
  CollectiveRun(const topo::Pod& pod, net::Network& network, Plan plan,
                ExecutorOptions options = {});
  CollectiveRun(const CollectiveRun&) = delete;
  CollectiveRun& operator=(const CollectiveRun&) = delete;

  // Called once when every chip is done (from an event, never re-entrantly).
  void set_on_done(std::function<void(sim::Simulation&)> fn) { on_done_ = std::move(fn); }

  // Every chip joins now.
  void start(sim::Simulation& sim);
  // One chip reaches the collective in its program. Each chip joins once.
  void join(sim::Simulation& sim, topo::ChipId chip);

  bool done() const { return chips_done_ == chip_count_; }
  sim::Time start_time() const { return start_; }
  sim::Time end_time() const { return end_; }
  sim::Time chip_done_time(topo::ChipId chip) const { return chip_end_[chip]; }

  uint64_t transfers_started() const { return transfers_started_; }
  uint64_t transfers_delivered() const { return transfers_delivered_; }
  uint64_t bytes_sent() const { return bytes_sent_; }
  uint64_t bytes_received() const { return bytes_received_; }
  // Bytes of this collective that crossed each link (indexed by LinkId).
  const std::vector<uint64_t>& link_bytes() const { return link_bytes_; }

  void delivered(sim::Simulation& sim, uint64_t tag) override;
  void handle(sim::Simulation& sim, uint64_t payload) override;

 private:
  struct LaneRef {
    uint32_t share;
    uint32_t phase;
    uint32_t lane;
  };
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

  Role role(uint32_t lane, topo::ChipId chip) const;
  topo::ChipId target(uint32_t lane, topo::ChipId chip, uint32_t step) const;
  uint32_t needed_receipts(uint32_t lane, topo::ChipId chip, uint32_t step) const;
  bool serial(uint32_t lane) const;

  void enter_phase(sim::Simulation& sim, topo::ChipId chip, uint32_t share);
  void try_send(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void receipt(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void check_lane_done(sim::Simulation& sim, uint32_t lane, topo::ChipId chip);
  void chip_finished(sim::Simulation& sim, topo::ChipId chip);
  const std::vector<topo::LinkId>& route(uint32_t lane, topo::ChipId src, topo::ChipId dst,
                                         topo::TieBreak tie);
  // part: the whole chunk, or one half of a block split between the two
  // ways round (see executor.cc).
  void send(sim::Simulation& sim, uint32_t lane, topo::ChipId src, topo::ChipId dst, int part);

  MemberState& state(uint32_t lane, topo::ChipId chip) {
    return states_[static_cast<size_t>(lane) * chip_count_ + chip];
  }
  const Phase& phase_of(uint32_t lane) const {
    return plan_.shares[lanes_[lane].share].phases[lanes_[lane].phase];
  }
  const Lane& lane_of(uint32_t lane) const { return phase_of(lane).lanes[lanes_[lane].lane]; }

  const topo::Pod& pod_;
  net::Network& network_;
  Plan plan_;
  ExecutorOptions options_;
  uint32_t chip_count_ = 0;

  std::vector<LaneRef> lanes_;                     // every (share, phase, lane)
  std::vector<std::vector<uint32_t>> lane_index_;  // [share][phase] -> first lane id
  std::vector<MemberState> states_;                // lane x chip
  std::vector<uint16_t> phase_at_;                 // share x chip: current phase
  std::vector<uint16_t> lanes_left_;               // share x chip: lanes of it not done
  std::vector<uint16_t> shares_left_;              // chip
  std::vector<uint8_t> joined_;
  std::vector<sim::Time> chip_end_;
  uint32_t chips_done_ = 0;

  // Routes, kept for the whole run because the network holds spans into them.
  // Serial patterns send every step to one target: their route is cached per
  // (lane, chip); all-to-all looks routes up by (src, dst).
  std::vector<std::vector<topo::LinkId>> route_store_;
  std::vector<uint32_t> route_slot_;  // lane x chip, kNoRoute until first use
  std::unordered_map<uint64_t, uint32_t> route_by_pair_;

  std::vector<uint64_t> link_bytes_;
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
