// The analytical model: closed-form transfer times, no contention.
//
// A transfer of B bytes over a route is delivered after
//   transfer_time(B, slowest effective bandwidth on the route) + sum of latencies
// (B == 0 pays the latencies only; src == dst is delivered at once). Transfers
// never slow each other down, however many share a link. The model keeps no
// state beyond one small record per transfer in flight and the link stats.
//
// Link stats are booked when a transfer starts: its bytes go to every link of
// its route at once, and each link counts as busy from the start for the time
// the bytes take at the route's bottleneck rate (the union of such intervals,
// clipped to now when read). This is the closed form's picture of a pipelined
// stream, not a hop-by-hop one.
//
// Costs: start O(hops), one event per transfer, no allocation in steady state.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "net/link_table.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "sim/event.h"

namespace podsim::net {

// The closed-form time of `bytes` over `route` (which must be a valid walk; it
// is not checked), with the efficiencies of `options`. O(hops). Other layers use
// it for quick estimates; AnalyticalNetwork delivers exactly at now + this.
sim::Time analytical_time(const topo::Pod& pod, std::span<const topo::LinkId> route, uint64_t bytes,
                          const Options& options);

class AnalyticalNetwork final : public Network, private sim::EventHandler {
 public:
  AnalyticalNetwork(const topo::Pod& pod, const Options& options);

  void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) override;
  Model model() const override { return Model::kAnalytical; }
  uint64_t in_flight() const override { return pending_.live(); }
  LinkStats link_stats(const sim::Simulation& sim) const override;

 private:
  struct Pending {
    TransferSink* sink = nullptr;
    uint64_t tag = 0;
  };
  struct Usage {
    uint64_t bytes = 0;
    sim::Time busy;        // union of busy intervals booked so far, future part included
    sim::Time busy_until;  // end of the last booked interval
  };

  // Delivers the transfer in slot `payload`.
  void handle(sim::Simulation& sim, uint64_t payload) override;
  void book(topo::LinkId id, uint64_t bytes, sim::Time from, sim::Time to);

  LinkTable links_;
  SlotPool<Pending> pending_;
  std::vector<Usage> usage_;  // indexed by LinkId
  std::vector<topo::LinkId> route_scratch_;
};

}  // namespace podsim::net
