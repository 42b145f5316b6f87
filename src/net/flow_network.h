// The flow model: every transfer is a fluid flow along its route, and each
// directed link's effective bandwidth is shared max-min fairly among the flows
// crossing it.
//
// Life of a transfer: its bytes drain at its max-min rate, which changes
// whenever a flow sharing a link with it (directly or through a chain of
// shared links) starts or drains. When the last byte has drained, the flow
// leaves its links and is delivered after the route's total latency: latency
// is counted once per route, after the bytes, as in bytes / bandwidth +
// hops x latency. A zero-byte transfer pays the latency only; src == dst is
// delivered at once (through an event).
//
// Incremental rates. Flows linked through shared links form a component; rates
// in one component do not depend on any other. When a flow starts, its
// component is found by a breadth-first walk over links and flows (marks are
// epoch numbers, so nothing is cleared); when a flow drains, the components
// of the flows still on its links are walked. Only those flows are brought up
// to date (remaining bytes advanced at their old rates) and re-solved (see
// maxmin.h), and only flows whose rate changed get their drain event
// cancelled and planned anew. A flow alone on its links (a ring step) costs
// O(route length) per event; disjoint flows never touch each other, so the
// cost does not grow with the pod.
//
// Rounding. Rates are doubles (bytes/s); remaining bytes are doubles advanced
// as rate x elapsed ps. A drain event is planned at ceil(remaining x 1e12 /
// rate) ps, exact integer arithmetic when both are whole (a flow alone on its
// links drains in exactly sim::transfer_time(bytes, bandwidth)); rounding up
// means a flow never drains before its bytes could have moved (to double
// precision, ~1e-16 relative). When the event fires the flow has drained,
// whatever tiny residue the doubles show.
//
// Memory: one record per flow in flight (reused), one per link; per-link member
// lists with back-indices (swap-remove in O(1)). No allocation per event in
// steady state; no ordered maps anywhere.
#pragma once

#include <cstdint>
#include <vector>

#include "net/link_table.h"
#include "net/maxmin.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "sim/event.h"

namespace podsim::net {

class FlowNetwork final : public Network, private sim::EventHandler {
 public:
  FlowNetwork(const topo::Pod& pod, const Options& options);

  void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) override;
  Model model() const override { return Model::kFlow; }
  uint64_t in_flight() const override { return flows_.live(); }
  // O(links + flows in flight x hops).
  LinkStats link_stats(const sim::Simulation& sim) const override;

  // What the incremental solver has done so far: tests check that disjoint
  // flows leave each other alone, benchmarks report the work per event.
  struct Counters {
    uint64_t solves = 0;        // components re-solved
    uint64_t solved_flows = 0;  // flows in those components, summed
    uint64_t reschedules = 0;   // pending drain events cancelled and planned anew
  };
  const Counters& counters() const { return counters_; }

 private:
  enum class Phase : uint8_t { kFree, kDraining, kLatency };
  enum class EventKind : uint64_t { kDrained = 0, kDelivered = 1 };
  struct Hop {
    topo::LinkId link = 0;
    uint32_t pos = 0;  // index of this flow's entry in the link's member list
  };
  struct Flow {
    TransferSink* sink = nullptr;
    uint64_t tag = 0;
    uint64_t bytes = 0;
    double remaining = 0;  // bytes not yet drained at `updated`
    double rate = 0;       // bytes/s since `updated`
    sim::Time updated;
    sim::Time latency;   // of the whole route
    sim::EventId event;  // drain (while draining) or delivery
    sim::Time event_time;
    uint64_t mark = 0;  // component-walk epoch
    Phase phase = Phase::kFree;
    std::vector<Hop> hops;
  };
  struct Member {
    uint32_t flow = 0;
    uint32_t hop = 0;  // index into the flow's hops
  };
  struct LinkState {
    double capacity = 0;  // effective bandwidth, bytes/s
    std::vector<Member> members;
    uint64_t mark = 0;     // component-walk epoch
    uint32_t local = 0;    // index in the current component's problem
    uint64_t bytes = 0;    // of flows that have fully drained across it
    sim::Time busy;        // closed busy periods
    sim::Time busy_since;  // start of the open period, while members is non-empty
  };

  void handle(sim::Simulation& sim, uint64_t payload) override;
  void drained(sim::Simulation& sim, uint32_t slot);
  void deliver(sim::Simulation& sim, uint32_t slot);
  void attach(uint32_t slot, sim::Time now);
  void detach(uint32_t slot, sim::Time now);

  // The component walk: begin, seed with flows or links, expand to closure.
  void begin_walk();
  void visit_flow(uint32_t slot);
  void visit_link(topo::LinkId id);
  void expand_walk();
  // Advances, re-solves and re-plans every flow of the walked component.
  void rebalance(sim::Simulation& sim);
  void advance(Flow& f, sim::Time now) const;
  sim::EventId schedule(sim::Simulation& sim, sim::Time at, uint32_t slot, EventKind kind);

  LinkTable table_;
  std::vector<LinkState> links_;  // indexed by LinkId
  SlotPool<Flow> flows_;
  uint64_t epoch_ = 0;
  std::vector<uint32_t> walk_flows_;      // component flows, in walk order
  std::vector<topo::LinkId> walk_links_;  // component links, local index order
  MaxMinProblem problem_;
  MaxMinSolver solver_;
  std::vector<double> rates_;
  std::vector<topo::LinkId> route_scratch_;
  Counters counters_;
};

}  // namespace podsim::net
