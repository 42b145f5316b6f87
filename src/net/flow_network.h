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
// in one component do not depend on any other. Only components that a
// starting or draining flow touches are walked (breadth-first over links and
// flows; marks are epoch numbers, so nothing is cleared), brought up to date
// (remaining bytes advanced at their old rates) and re-solved (see maxmin.h);
// only flows whose rate changed are planned anew. Disjoint flows never touch
// each other, so the cost does not grow with the pod.
//
// One drain event per component. Every flow of a component keeps its planned
// drain time, but only those that drain first have an event: when they
// drain, the flows left are walked from the links they leave (each part of
// the component touches one) and planned again, so a later flow's event
// would only be cancelled. An all-to-all's component of N flows that drain
// one after another costs N events, not N^2 / 2 schedules and cancels. The
// drain times are those of one event per flow; flows that drain at one
// instant may drain in another order (their events were scheduled at other
// times), as they may in a symmetric run against the full one.
//
// One solve per instant. A start that joins busy links, and a drain, do not
// re-solve at once: they mark links dirty, and a single resolve event at the
// same simulated time, with a late priority (kResolvePriority), walks every
// dirty component once. So F flows that start (or drain) at the same instant
// cost one solve of their component, O((L + H) log L) for its L links and H
// (flow, link) incidences, instead of F solves of a growing component
// (O(F^2 x hops) for an all-to-all). No simulated time passes between a start
// and the resolve: a flow has rate zero until then, which moves no byte. The
// priority only decides how much gets batched; correctness does not depend on
// it (a start after the resolve of its instant schedules another one).
//
// Flows alone in their component skip their drain event: their rate cannot
// change until another flow joins one of their links, so the delivery is
// planned directly at drain + latency (one event per transfer, not two) and
// the flow stays on its links, marked kAlone, until then. A flow that starts
// on free links is such a component at once and is planned on the spot, with
// no walk and no resolve: a ring step costs O(hops) and one event. A kAlone
// flow's links are closed as of its drain when it is planned: their byte
// counts and busy periods already include it, and each link says so itself
// (LinkState::closed, with the drain time in busy_since). A flow that later
// joins one of those links either finds it past that time, and takes the link
// over without reading the old flow's record (the old flow leaves its other
// links the same way, one by one, or at its delivery), or converts the kAlone
// flow back into an ordinary draining flow of the joint component, the
// link's accounts reopened, at the next resolve.
//
// Rounding. Rates are doubles (bytes/s); remaining bytes are doubles advanced
// as rate x elapsed ps. A drain is planned at ceil(remaining x 1e12 / rate)
// ps, exact integer arithmetic when both are whole (a flow alone on its links
// drains in exactly sim::transfer_time(bytes, bandwidth)); rounding up means a
// flow never drains before its bytes could have moved (to double precision,
// ~1e-16 relative). When the drain comes the flow has drained, whatever tiny
// residue the doubles show.
//
// Memory: one 128-byte record per flow in flight (reused; routes longer than
// kNearHops keep their hops in one shared array, a region per flow slot),
// one 64-byte record per link holding its first member (the rest of its
// member list, back-indices, swap-remove in O(1), in a side vector that a
// link gets the first time it has two members), and dense arrays of 4 bytes
// per link and per flow slot for the component walk's marks and local
// indices. The per-link arrays come zeroed from the system and are never
// written at construction (net/zeroed_array.h): a link's record is filled in
// when a transfer first names it, so pages of links no transfer crosses are
// never mapped (a symmetric run on a 64x64x64 torus crosses 6 of its 1.5
// million links). The records are laid out so
// that a delivery reads one cache line of the flow and one per link, and a
// walk over a large component reads the dense arrays for the incidences it
// has already seen: on a 4096-chip pod the flows in flight do not fit in
// cache, and those misses, not arithmetic, set the speed: a walk prefetches
// a flow's record when it finds the flow, and the links of a route before it
// visits them, so that a component's misses overlap. The kernel's
// prefetch hint starts loading an upcoming event's flow record (both lines:
// a delivery's slot is the next start's, LIFO) and first link while the
// current event runs; its second hint, given later, hands a delivery's sink
// the flow's tag, so that the sink's state loads too. No allocation
// per event in steady state; no hash or ordered maps anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "net/link_table.h"
#include "net/maxmin.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "net/zeroed_array.h"
#include "sim/event.h"

namespace podsim::net {

class FlowNetwork final : public Network, private sim::EventHandler {
 public:
  // The resolve event runs after every other event of its instant that uses a
  // lower priority (the default is 0).
  static constexpr int kResolvePriority = sim::kLastPriority;

  FlowNetwork(const topo::Pod& pod, const Options& options);

  void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) override;
  Model model() const override { return Model::kFlow; }
  uint64_t in_flight() const override { return flows_.live(); }
  // O(links + flows in flight x hops).
  LinkStats link_stats(const sim::Simulation& sim) const override;

  // What the incremental solver has done so far: tests check that disjoint
  // flows leave each other alone, benchmarks report the work per event.
  struct Counters {
    uint64_t resolves = 0;      // resolve events
    uint64_t solves = 0;        // components re-solved
    uint64_t solved_flows = 0;  // flows in those components, summed
    uint64_t reschedules = 0;   // flows already planned whose drain was planned anew
    uint64_t cancels = 0;       // pending drains and deliveries cancelled
  };
  const Counters& counters() const { return counters_; }

 private:
  enum class Phase : uint8_t {
    kFree,
    kDraining,  // shares its component; `event` is its drain (invalid until first solved)
    kAlone,     // alone in its component; `event` is its delivery, at drain_at + latency
    kLatency,   // drained and off its links; `event` is its delivery
  };
  enum class EventKind : uint64_t { kDrained = 0, kDelivered = 1, kResolve = 2 };
  struct Hop {
    topo::LinkId link = 0;
    uint32_t pos = 0;  // index of this flow's entry in the link's member list
  };
  // Hops kept in the flow record itself; longer routes go to far_hops_.
  static constexpr uint32_t kNearHops = 2;
  // Two cache lines. The first holds everything a delivery reads (for a
  // route of up to kNearHops links, every ring step), so delivering a kAlone
  // flow reads one line; the second what solving and planning use.
  struct alignas(64) Flow {
    Phase phase = Phase::kFree;
    uint32_t hop_count = 0;
    TransferSink* sink = nullptr;
    uint64_t tag = 0;
    uint64_t bytes = 0;
    sim::Time drain_at;  // planned drain (kDraining once solved, kAlone)
    sim::Time latency;   // of the whole route
    // The route when it has at most kNearHops links. A longer one lives in
    // far_hops_, and near_hops[0].link then holds where its region starts
    // (far_begin()): reading the route costs one load after the record, not
    // a look-up in far_region_ first.
    std::array<Hop, kNearHops> near_hops{};

    double remaining = 0;  // bytes not yet drained at `updated`
    double rate = 0;       // bytes/s since `updated`
    sim::Time updated;
    // The drain or delivery scheduled for drain_at, while pending. A flow
    // that shares its component has one only while no flow of the
    // component drains before it (solve_component).
    sim::EventId event;
    bool planned = false;  // drain_at is set (the flow has been solved)
  };
  static_assert(offsetof(Flow, remaining) == 64 && sizeof(Flow) == 128);
  // A Member's `hop` says where the flow's Hop for this link lives, so that
  // a swap-remove writes the moved member's new position without first
  // reading the flow's record: kFarHop | its index in far_hops_ for a route
  // longer than kNearHops, else its index in the flow's near_hops.
  static constexpr uint32_t kFarHop = 0x80000000u;
  struct Member {
    uint32_t flow = 0;
    uint32_t hop = 0;
  };
  Hop& member_hop(const Member& m) {
    return (m.hop & kFarHop) != 0 ? far_hops_[m.hop & ~kFarHop] : flows_[m.flow].near_hops[m.hop];
  }
  // One cache line: what a start or a delivery reads and writes of a link.
  // Its members are a list (order matters: component walks follow it) whose
  // first entry lives here and the rest in more_members_[link], so the common
  // link of one flow never touches memory outside this line.
  struct alignas(64) LinkState {
    double capacity = 0;   // effective bandwidth, bytes/s
    uint64_t bytes = 0;    // of flows that have fully drained across it (or will: `closed`)
    sim::Time busy;        // closed busy periods
    sim::Time busy_since;  // start of the open period, while it has members; when `closed`, its end
    uint32_t member_count = 0;
    Member first;  // member 0, when member_count > 0
    // What a start checks and sums of its route (LinkTable's, copied here
    // so that a start reads one line per hop).
    topo::VertexId src = 0;
    topo::VertexId dst = 0;
    // Its members are one kAlone flow (a route over link classes may cross
    // a link more than once), already counted in `bytes`, and `busy` runs
    // to its drain, which busy_since holds: at or after that time the link
    // is free, whatever the flow's own record says.
    bool closed = false;
    sim::Time latency;
  };
  static_assert(sizeof(LinkState) == 64);
  // Member i of link `id`'s list (i < member_count).
  Member& member(topo::LinkId id, uint32_t i) {
    return i == 0 ? links_[id].first : more_pool_[more_index_[id] - 1][i - 1];
  }
  const Member& member(topo::LinkId id, uint32_t i) const {
    return i == 0 ? links_[id].first : more_pool_[more_index_[id] - 1][i - 1];
  }
  // The link's record, its fixed fields (capacity, ends, latency) filled in
  // from the table the first time a transfer names it (records start zeroed:
  // net/zeroed_array.h).
  LinkState& touch(topo::LinkId id) {
    LinkState& link = links_[id];
    if (link.capacity == 0) {
      fill(id);
    }
    return link;
  }
  void fill(topo::LinkId id);
  void push_member(topo::LinkId id, const Member& m);
  // Removes the last member.
  void pop_member(topo::LinkId id);

  std::span<Hop> hops(uint32_t slot) {
    Flow& f = flows_[slot];
    return f.hop_count <= kNearHops ? std::span<Hop>(f.near_hops.data(), f.hop_count)
                                    : std::span<Hop>(far_hops_.data() + far_begin(f), f.hop_count);
  }
  std::span<const Hop> hops(uint32_t slot) const {
    const Flow& f = flows_[slot];
    return f.hop_count <= kNearHops
               ? std::span<const Hop>(f.near_hops.data(), f.hop_count)
               : std::span<const Hop>(far_hops_.data() + far_begin(f), f.hop_count);
  }
  static uint32_t far_begin(const Flow& f) { return f.near_hops[0].link; }

  // t.route when it is a walk from t.src to t.dst, else the pod's default
  // route; throws LinkTable::resolve's errors. O(hops).
  std::span<const topo::LinkId> resolve_route(const Transfer& t);
  void handle(sim::Simulation& sim, uint64_t payload) override;
  // A drain or delivery reads the flow's first cache line, and the record
  // of the first link it leaves (named in the payload).
  void prefetch(uint64_t payload) const override;
  // A delivery's sink gets its own hint from the flow record prefetch()
  // loaded in an earlier event.
  void prefetch_indirect(uint64_t payload) const override;
  void drained(sim::Simulation& sim, uint32_t slot);
  void deliver(sim::Simulation& sim, uint32_t slot);
  void resolve(sim::Simulation& sim);
  // Joins the flow to its links, first taking over a closed link whose
  // kAlone flow has drained, or reopening one whose flow has not. Returns
  // whether every link was free. O(hops).
  bool attach(uint32_t slot, sim::Time now);
  // Leaves the flow's links; `drained_at` closes their busy periods.
  void detach(uint32_t slot, sim::Time drained_at);
  // A kAlone flow's links: close() counts its bytes and busy time to its
  // drain (when it is planned), reopen() takes them back as of `now` (when
  // it shares a link after all), leave_closed() leaves the links it is
  // still on (at its delivery).
  void close(uint32_t slot);
  static void reopen(LinkState& link, uint64_t bytes, sim::Time now);
  void leave_closed(uint32_t slot);
  // Empties a closed link's member list.
  void clear_closed(topo::LinkId id);
  void mark_dirty(sim::Simulation& sim, topo::LinkId id);

  // The component walk: seed with a link, expand to closure.
  void begin_component();
  // Returns the flow's index in the component (its place in walk_flows_).
  uint32_t visit_flow(uint32_t slot);
  void visit_link(topo::LinkId id);
  void expand_component();
  // Advances, re-solves and re-plans every flow of the walked component.
  void solve_component(sim::Simulation& sim);
  void solve_rates();
  // Gives the flow its new rate and works out its drain (alone: its
  // delivery follows at drain + latency); schedule() gives it its event.
  void plan(sim::Simulation& sim, uint32_t slot, double rate, bool alone);
  // Schedules the planned flow's event: its delivery when kAlone, else its
  // drain. A re-solve of its component may cancel it (solve_component).
  void schedule(sim::Simulation& sim, uint32_t slot);
  // Cancels the flow's pending event, if it has one.
  void drop_event(sim::Simulation& sim, Flow& f);
  double bottleneck(uint32_t slot) const;
  void advance(Flow& f, sim::Time now) const;
  // The next component-walk epoch; on wrap-around every mark is cleared.
  void next_epoch();
  // The payload of the flow's event of this kind.
  uint64_t payload(uint32_t slot, EventKind kind) const;

  LinkTable table_;
  // By LinkId, zeroed until a transfer first names the link (touch()).
  ZeroedArray<LinkState> links_;
  std::vector<topo::LinkId> filled_;  // the links whose record fill() wrote, in that order
  // Members 1, 2, ... of a link that has had more than one: more_pool_[i - 1]
  // for more_index_[link] = i (0: none yet). A link keeps its vector once
  // given one.
  ZeroedArray<uint32_t> more_index_;
  std::vector<std::vector<Member>> more_pool_;
  // Component walks, in dense arrays of their own (a walk over a large
  // component reads them for every incidence, most of them already visited,
  // and so never loads a link's or a flow's record to learn it): the epoch
  // that last visited each link and flow slot, and each one's index in the
  // component's problem.
  ZeroedArray<uint32_t> link_mark_;   // by LinkId
  ZeroedArray<uint32_t> link_local_;  // by LinkId
  struct FlowWalk {
    uint32_t mark = 0;   // the epoch that last visited the flow
    uint32_t local = 0;  // its index in that walk's component
  };
  std::vector<FlowWalk> flow_walk_;  // by flow slot
  SlotPool<Flow> flows_;
  // Routes longer than kNearHops: each flow slot that ever had one owns a
  // region of far_hops_ (one array, so reading a route is one load, not a
  // vector header and then its buffer). A slot whose route outgrows its
  // region gets a new one twice as large at the end; the old one is left
  // unused, so the array is at most about twice the longest routes' total.
  struct FarRegion {
    uint32_t begin = 0;
    uint32_t capacity = 0;
  };
  std::vector<Hop> far_hops_;
  std::vector<FarRegion> far_region_;  // by flow slot
  uint32_t epoch_ = 0;
  // Links touched by starts and drains since the last resolve; the resolve
  // event is pending whenever this is non-empty.
  std::vector<topo::LinkId> dirty_;
  std::vector<topo::LinkId> resolving_;  // the batch being resolved
  std::vector<uint32_t> walk_flows_;     // component flows, in walk order
  MaxMinProblem problem_;                // the walked component's, built as the walk goes
  MaxMinSolver solver_;
  std::vector<double> rates_;
  std::vector<topo::LinkId> route_scratch_;
  Counters counters_;
  // plan()'s last drain_time(): the flows of one step of a collective drain
  // the same bytes at the same rate, and the exact time is a 64-bit integer
  // division (drain_time is a function of its two arguments alone). On a
  // full 8x8x8 all-reduce 86% of plans reuse it.
  struct LastDrain {
    double remaining = -1;
    double rate = 0;
    sim::Time time;
  };
  LastDrain last_drain_;
};

}  // namespace podsim::net
