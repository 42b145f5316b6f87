// Collectives on the analytical network, taken whole instead of transfer by
// transfer.
//
// A serving step runs the same collective over and over (two all-reduces per
// layer, eighty layers), and on the analytical network a collective that
// starts with every participant at one instant, on links nothing else is
// using, always unfolds the same way: the model is deterministic and sees
// other traffic only through the links' bookings. So the first such run of a
// plan is played once, on a network and a simulation of its own
// (record_isolated), and what it did -- when each chip finished, relative to
// the start, and what it booked on each link -- is kept in a ReplayCache; every
// later one is laid onto the live network from the record (ReplayedRun): the
// chips are told they are done at start + their offsets, and the links get the
// recorded bytes and busy time and stay booked until start + the recorded
// end. That costs one event per chip and a few operations per link, where
// playing it costs events, bookings and routing for every transfer.
//
// When it applies, and why the result does not change:
//  - Every participant joins at the same instant, and at that instant none of
//    the recorded links is booked or has a transfer of the instant waiting to
//    be booked (AnalyticalNetwork::idle). Otherwise the run is played
//    transfer by transfer, exactly as CollectiveRun plays it: a slow chip
//    that joins late, a collective that starts on a busy link, are played.
//  - The replay cannot see traffic that starts on the collective's links
//    while it runs: played, such a transfer would share a link with the
//    collective's steps; replayed, the link is booked up front. So the
//    network notes any transfer booked on a link inside laid bookings
//    (AnalyticalNetwork::replay_disturbed), and the engine then stops and
//    plays the whole step again without replaying (engine/step.h). Weight-
//    gathered layouts do this: the next layer's weights are gathered while
//    the current layer's are still on the links.
//  - So results are the same to the picosecond as playing every transfer;
//    only the event count differs (tests/coll/replay_test.cc,
//    tests/engine/replay_agreement_test.cc on every shipped serving workload).
// The decision is taken at the end of the instant the first chip joins (an
// event just before the analytical network books the instant's transfers),
// so transfers of a run that is played after all join the same booking as
// if they had started when their chips joined.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "coll/executor.h"
#include "coll/plan.h"
#include "coll/run.h"
#include "net/analytical_network.h"
#include "sim/event.h"
#include "sim/simulation.h"
#include "topo/pod.h"

namespace podsim::coll {

// What a run did on idle links, relative to its start.
struct Recording {
  // Every participant, in the order it finished, with when.
  std::vector<std::pair<topo::ChipId, sim::Time>> chip_done;
  std::vector<net::AnalyticalNetwork::Booking> links;  // every link it put bytes on
};

// Plays `plan` alone: a fresh analytical network with `options` over `pod`,
// `joiners` joining at time zero in that order. Throws what CollectiveRun
// throws.
Recording record_isolated(const topo::Pod& pod, const net::Options& options, const Plan& plan,
                          const ExecutorOptions& executor,
                          const std::vector<topo::ChipId>& joiners);

// Recordings by (the caller's key for the plan, the chips that joined, in
// order). Not thread-safe: one per simulation.
class ReplayCache {
 public:
  ReplayCache(const topo::Pod& pod, const net::Options& options, const ExecutorOptions& executor)
      : pod_(pod), options_(options), executor_(executor) {}
  // The recording of `plan` (known to the caller as `key`) joined by `joiners`,
  // played the first time it is asked for.
  const Recording& get(uint32_t key, const Plan& plan, const std::vector<topo::ChipId>& joiners);
  uint64_t recorded() const { return recorded_; }
  uint64_t replayed() const { return replayed_; }
  void count_replay() { ++replayed_; }

 private:
  const topo::Pod& pod_;
  net::Options options_;
  ExecutorOptions executor_;
  std::map<std::pair<uint32_t, std::vector<topo::ChipId>>, Recording> recordings_;
  uint64_t recorded_ = 0;
  uint64_t replayed_ = 0;
};

class ReplayedRun final : public Run, private sim::EventHandler {
 public:
  // `plan` stays owned by the caller and must outlive the run, as must the
  // pod, the network, the cache and `may_join` (the chips that may join, as
  // for CollectiveRun; empty: any).
  ReplayedRun(const topo::Pod& pod, net::AnalyticalNetwork& network, const Plan& plan,
              uint32_t plan_key, const ExecutorOptions& executor, ReplayCache& cache,
              std::span<const topo::ChipId> may_join = {})
      : pod_(pod),
        network_(network),
        plan_(plan),
        plan_key_(plan_key),
        executor_(executor),
        cache_(cache),
        may_join_(may_join) {}

  void set_on_done(std::function<void(sim::Simulation&)> fn) override { on_done_ = std::move(fn); }
  void set_on_chip_done(std::function<void(sim::Simulation&, topo::ChipId)> fn) override {
    on_chip_done_ = std::move(fn);
  }
  void set_participants(uint32_t chips) override { participants_ = chips; }
  void join(sim::Simulation& sim, topo::ChipId chip) override;

  // After the decision: whether the run was laid from a recording.
  bool replayed() const { return recording_ != nullptr; }

 private:
  static constexpr uint64_t kDecide = ~uint64_t{0};
  void handle(sim::Simulation& sim, uint64_t payload) override;
  void decide(sim::Simulation& sim);
  void play(sim::Simulation& sim);

  const topo::Pod& pod_;
  net::AnalyticalNetwork& network_;
  const Plan& plan_;
  uint32_t plan_key_ = 0;
  ExecutorOptions executor_;
  ReplayCache& cache_;
  std::span<const topo::ChipId> may_join_;
  uint32_t participants_ = 0;  // 0: every chip of the pod
  std::function<void(sim::Simulation&)> on_done_;
  std::function<void(sim::Simulation&, topo::ChipId)> on_chip_done_;

  std::vector<topo::ChipId> joiners_;  // before the decision
  bool decided_ = false;
  const Recording* recording_ = nullptr;  // replayed: the record laid down
  size_t chips_done_ = 0;
  std::unique_ptr<CollectiveRun> played_;  // played transfer by transfer
};

}  // namespace podsim::coll
