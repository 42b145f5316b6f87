#include "net/flow_network.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/simulation.h"

namespace podsim::net {
namespace {

// An event's payload: kind in the low 2 bits, the flow's slot in the next
// 30, and in the high 32 the first link of its route when the event will
// leave it (a drain, or the delivery of a kAlone flow), for prefetch().
constexpr uint64_t kKindBits = 2;
constexpr uint64_t kKindMask = (uint64_t{1} << kKindBits) - 1;
constexpr uint64_t kSlotBits = 30;
constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;
constexpr uint64_t kLinkShift = 32;
constexpr uint64_t kNoLink = 0xffffffffu;

}  // namespace

FlowNetwork::FlowNetwork(const topo::Pod& pod, const Options& options)
    : table_(pod, options),
      links_(table_.size()),
      more_index_(table_.size()),
      link_mark_(table_.size()),
      link_local_(table_.size()) {}

void FlowNetwork::fill(topo::LinkId id) {
  LinkState& link = links_[id];
  const topo::Link& l = table_.pod().link(id);
  link.capacity = static_cast<double>(table_.bandwidth(id).bytes_per_s());
  link.latency = table_.latency(id);
  link.src = l.src;
  link.dst = l.dst;
  filled_.push_back(id);  // once: the table's bandwidths are > 0
}

uint64_t FlowNetwork::payload(uint32_t slot, EventKind kind) const {
  uint64_t link = kNoLink;
  if (kind != EventKind::kResolve) {
    const Flow& f = flows_[slot];
    if (f.hop_count > 0 && (kind == EventKind::kDrained || f.phase == Phase::kAlone))
      link = hops(slot)[0].link;
  }
  return (link << kLinkShift) | (uint64_t{slot} << kKindBits) | static_cast<uint64_t>(kind);
}

std::span<const topo::LinkId> FlowNetwork::resolve_route(const Transfer& t) {
  if (t.over_classes)
    return table_.class_route(t);
  if (t.route.empty())
    return table_.resolve(t, route_scratch_);  // the pod's default route
  // An explicit route is checked against the links' own records, which
  // attach() reads next anyway; LinkTable::resolve makes the same checks
  // and, for a route that fails them, throws its error.
  topo::VertexId at = t.src;
  for (const topo::LinkId id : t.route) {
    if (id >= links_.size() || touch(id).src != at)
      return table_.resolve(t, route_scratch_);
    at = links_[id].dst;
  }
  if (at != t.dst)
    return table_.resolve(t, route_scratch_);
  return t.route;
}

void FlowNetwork::start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) {
  const auto route = resolve_route(t);
  const uint32_t slot = flows_.acquire();
  if (slot > kSlotMask) {
    flows_.release(slot);
    throw std::length_error("FlowNetwork: more than 2^30 transfers in flight");
  }
  if (slot >= flow_walk_.size())
    flow_walk_.resize(slot + 1);
  // Transfers often start in bursts (an all-to-all's, a collective step's):
  // the next start's record, and where its long route would go, start
  // loading now.
  if (const uint32_t next = flows_.next(); next < flows_.capacity()) {
    __builtin_prefetch(&flows_[next], 1);
    __builtin_prefetch(reinterpret_cast<const char*>(&flows_[next]) + 64, 1);
    if (next < far_region_.size())
      __builtin_prefetch(&far_region_[next]);
  }
  Flow& f = flows_[slot];
  f.sink = &sink;
  f.tag = tag;
  f.bytes = t.bytes;
  f.latency = sim::Time::zero();
  for (const topo::LinkId id : route)
    f.latency += touch(id).latency;
  f.hop_count = 0;
  if (route.empty() || t.bytes == 0) {  // nothing to drain: only the latency to pay
    f.phase = Phase::kLatency;
    f.event = sim::EventId{};  // nothing re-plans a delivery
    sim.schedule_at(sim.now() + f.latency, *this, payload(slot, EventKind::kDelivered));
    return;
  }
  f.phase = Phase::kDraining;
  f.hop_count = static_cast<uint32_t>(route.size());
  if (f.hop_count > kNearHops) {
    if (slot >= far_region_.size())
      far_region_.resize(slot + 1);
    FarRegion& region = far_region_[slot];
    if (region.capacity < f.hop_count) {
      region.capacity = std::bit_ceil(std::max(f.hop_count, 2 * kNearHops));
      if (far_hops_.size() + region.capacity > kFarHop)  // Member::hop's index
        throw std::length_error("FlowNetwork: too many hops in flight");
      region.begin = static_cast<uint32_t>(far_hops_.size());
      far_hops_.resize(far_hops_.size() + region.capacity);
    }
    f.near_hops[0].link = region.begin;  // far_begin()
  }
  const std::span<Hop> h = hops(slot);
  for (uint32_t i = 0; i < f.hop_count; ++i)
    h[i] = Hop{route[i], 0};
  f.remaining = static_cast<double>(t.bytes);
  f.rate = 0;
  f.updated = sim.now();
  f.event = sim::EventId{};
  f.planned = false;
  if (attach(slot, sim.now())) {
    // Its links were free: a component of its own, solved on the spot (the
    // ring-step case: no walk, no resolve event).
    plan(sim, slot, bottleneck(slot), true);
    schedule(sim, slot);
    ++counters_.solves;
    ++counters_.solved_flows;
    return;
  }
  // Any one of its links leads the walk to the flow and so to all the others.
  mark_dirty(sim, route.front());
}

void FlowNetwork::handle(sim::Simulation& sim, uint64_t payload) {
  const auto slot = static_cast<uint32_t>((payload >> kKindBits) & kSlotMask);
  switch (static_cast<EventKind>(payload & kKindMask)) {
    case EventKind::kDrained:
      drained(sim, slot);
      break;
    case EventKind::kDelivered:
      deliver(sim, slot);
      break;
    case EventKind::kResolve:
      resolve(sim);
      break;
  }
}

void FlowNetwork::prefetch(uint64_t payload) const {
  const auto slot = static_cast<uint32_t>((payload >> kKindBits) & kSlotMask);
  if (static_cast<EventKind>(payload & kKindMask) == EventKind::kResolve)
    return;
  if (slot < flows_.capacity()) {
    __builtin_prefetch(&flows_[slot]);
    __builtin_prefetch(reinterpret_cast<const char*>(&flows_[slot]) + 64);
  }
  const uint64_t link = payload >> kLinkShift;
  if (link < links_.size())
    __builtin_prefetch(&links_[link]);
}

void FlowNetwork::prefetch_indirect(uint64_t payload) const {
  if (static_cast<EventKind>(payload & kKindMask) != EventKind::kDelivered)
    return;
  const auto slot = static_cast<uint32_t>((payload >> kKindBits) & kSlotMask);
  if (slot < flows_.capacity()) {
    const Flow& f = flows_[slot];
    if (f.sink != nullptr)
      f.sink->prefetch(f.tag);
  }
}

void FlowNetwork::mark_dirty(sim::Simulation& sim, topo::LinkId id) {
  if (dirty_.empty())
    sim.schedule_at(sim.now(), *this, payload(0, EventKind::kResolve), kResolvePriority);
  dirty_.push_back(id);
}

void FlowNetwork::drained(sim::Simulation& sim, uint32_t slot) {
  Flow& f = flows_[slot];
  f.remaining = 0;
  f.rate = 0;
  f.phase = Phase::kLatency;
  f.event = sim::EventId{};  // nothing re-plans a delivery
  sim.schedule_at(sim.now() + f.latency, *this, payload(slot, EventKind::kDelivered));
  detach(slot, sim.now());
  // The flows left on its links (and whatever they connect to) share the
  // capacity it frees, from the resolve at the end of this instant.
  for (const Hop& h : hops(slot)) {
    if (links_[h.link].member_count != 0)
      mark_dirty(sim, h.link);
  }
}

void FlowNetwork::deliver(sim::Simulation& sim, uint32_t slot) {
  Flow& f = flows_[slot];
  if (f.phase == Phase::kAlone)  // still on the links nobody took over
    leave_closed(slot);
  TransferSink* sink = f.sink;
  const uint64_t tag = f.tag;
  f.phase = Phase::kFree;
  flows_.release(slot);  // before the sink runs: it may start a transfer in this slot
  sink->delivered(sim, tag);
}

void FlowNetwork::resolve(sim::Simulation& sim) {
  resolving_.swap(dirty_);  // anything marked from here on schedules a new resolve
  ++counters_.resolves;
  next_epoch();  // one epoch per batch: each link and flow is walked at most once
  constexpr size_t kSeedsAhead = 4;
  for (size_t i = 0; i < resolving_.size(); ++i) {
    if (i + kSeedsAhead < resolving_.size())
      __builtin_prefetch(&links_[resolving_[i + kSeedsAhead]]);
    const topo::LinkId id = resolving_[i];
    if (link_mark_[id] == epoch_)
      continue;  // already solved with an earlier seed's component
    begin_component();
    visit_link(id);
    expand_component();
    solve_component(sim);
  }
  resolving_.clear();
}

void FlowNetwork::next_epoch() {
  if (++epoch_ != 0)
    return;
  // 2^32 resolves later: clear every mark so that no stale one can match.
  std::fill(link_mark_.begin(), link_mark_.end(), 0);
  std::fill(flow_walk_.begin(), flow_walk_.end(), FlowWalk{});
  epoch_ = 1;
}

bool FlowNetwork::attach(uint32_t slot, sim::Time now) {
  const std::span<Hop> route = hops(slot);
  const Flow& f = flows_[slot];
  const uint32_t where = f.hop_count > kNearHops ? kFarHop | far_begin(f) : 0;
  bool free = true;
  for (uint32_t i = 0; i < route.size(); ++i) {
    LinkState& link = links_[route[i].link];
    // A kAlone flow is the only member of its links until someone joins, and
    // the link's own record says whether it has drained: then it leaves the
    // link now (already counted: close()), unread; else the link's accounts
    // reopen and the resolve makes it an ordinary draining flow.
    if (link.closed) {
      if (link.busy_since <= now) {
        clear_closed(route[i].link);
      } else {
        reopen(link, flows_[link.first.flow].bytes, now);
      }
    }
    if (link.member_count == 0) {
      link.busy_since = now;
    } else {
      free = false;
    }
    route[i].pos = link.member_count;
    push_member(route[i].link, Member{slot, where + i});
  }
  return free;
}

void FlowNetwork::close(uint32_t slot) {
  // A route over link classes may name a link more than once: the flow is
  // then each of its members, and its bytes count once per crossing, as a
  // detach would count them.
  const Flow& f = flows_[slot];
  for (const Hop& h : hops(slot)) {
    LinkState& link = links_[h.link];
    link.bytes += f.bytes;
    if (!link.closed) {
      link.busy += f.drain_at - link.busy_since;
      link.busy_since = f.drain_at;
      link.closed = true;
    }
  }
}

void FlowNetwork::reopen(LinkState& link, uint64_t bytes, sim::Time now) {
  // busy runs to the drain in busy_since: take back the part after `now`,
  // and keep the period open from there. Every member is the one flow.
  link.busy -= link.busy_since - now;
  link.busy_since = now;
  link.bytes -= bytes * link.member_count;
  link.closed = false;
}

void FlowNetwork::leave_closed(uint32_t slot) {
  // Every link the flow is still on is closed, with the flow as its only
  // member (its slot is not reused before this delivery); the others
  // were taken over.
  for (const Hop& h : hops(slot)) {
    const LinkState& link = links_[h.link];
    if (link.closed && link.first.flow == slot)
      clear_closed(h.link);
  }
}

void FlowNetwork::clear_closed(topo::LinkId id) {
  LinkState& link = links_[id];
  if (link.member_count > 1)  // a route over classes crossed it more than once
    more_pool_[more_index_[id] - 1].clear();
  link.member_count = 0;
  link.closed = false;
}

void FlowNetwork::detach(uint32_t slot, sim::Time drained_at) {
  const uint64_t bytes = flows_[slot].bytes;
  for (const Hop& h : hops(slot)) {
    LinkState& link = links_[h.link];
    link.bytes += bytes;
    // Swap-remove: the last member takes this one's place and learns its new
    // index. A lone member (the common case) is last: nothing moves.
    if (h.pos + 1 != link.member_count) {
      const Member last = member(h.link, link.member_count - 1);
      member(h.link, h.pos) = last;
      member_hop(last).pos = h.pos;
    }
    pop_member(h.link);
    if (link.member_count == 0)
      link.busy += drained_at - link.busy_since;
  }
}

void FlowNetwork::push_member(topo::LinkId id, const Member& m) {
  LinkState& link = links_[id];
  if (link.member_count == 0) {
    link.first = m;
  } else {
    if (more_index_[id] == 0) {
      more_pool_.emplace_back();
      more_index_[id] = static_cast<uint32_t>(more_pool_.size());
    }
    more_pool_[more_index_[id] - 1].push_back(m);
  }
  ++link.member_count;
}

void FlowNetwork::pop_member(topo::LinkId id) {
  LinkState& link = links_[id];
  assert(link.member_count > 0);
  if (--link.member_count > 0)
    more_pool_[more_index_[id] - 1].pop_back();
}

void FlowNetwork::begin_component() {
  walk_flows_.clear();
  problem_.clear();
}

uint32_t FlowNetwork::visit_flow(uint32_t slot) {
  FlowWalk& w = flow_walk_[slot];
  if (w.mark == epoch_)
    return w.local;
  w.mark = epoch_;
  w.local = static_cast<uint32_t>(walk_flows_.size());
  walk_flows_.push_back(slot);
  // The walk reads the record's first line (its hops) when it expands the
  // flow, and solve_component the second: start both loads now, so that the
  // misses of a component's flows overlap instead of following each other.
  __builtin_prefetch(&flows_[slot]);
  __builtin_prefetch(reinterpret_cast<const char*>(&flows_[slot]) + 64);
  return w.local;
}

void FlowNetwork::visit_link(topo::LinkId id) {
  if (link_mark_[id] == epoch_)
    return;
  link_mark_[id] = epoch_;
  const LinkState& link = links_[id];
  // The link's column of the max-min problem: the flows it carries.
  link_local_[id] = problem_.add_link(link.capacity);
  for (uint32_t i = 0; i < link.member_count; ++i)
    problem_.push_flow(visit_flow(member(id, i).flow));
  problem_.end_link();
}

void FlowNetwork::expand_component() {
  // walk_flows_ doubles as the breadth-first queue: it grows while we scan it.
  for (size_t i = 0; i < walk_flows_.size(); ++i) {
    // The next flow's record was prefetched when the walk found it: start
    // loading its route too, where that is outside the record.
    if (i + 1 < walk_flows_.size()) {
      const Flow& next = flows_[walk_flows_[i + 1]];
      if (next.hop_count > kNearHops)
        __builtin_prefetch(far_hops_.data() + far_begin(next));
    }
    const std::span<const Hop> route = hops(walk_flows_[i]);
    // The records of the links not yet visited load together, and so do
    // their member lists beyond the first (the index and the list's header
    // are small and hot; the list itself is not).
    for (const Hop& h : route) {
      if (link_mark_[h.link] != epoch_) {
        __builtin_prefetch(&links_[h.link]);
        if (const uint32_t more = more_index_[h.link]; more != 0)
          __builtin_prefetch(more_pool_[more - 1].data());
      }
    }
    for (const Hop& h : route)
      visit_link(h.link);
    // Every link of the route has its local index now: the flow's row of
    // the max-min problem (flows in walk order, links in visit order).
    for (const Hop& h : route)
      problem_.push_link(link_local_[h.link]);
    problem_.end_flow();
  }
}

void FlowNetwork::advance(Flow& f, sim::Time now) const {
  if (now > f.updated) {
    const double elapsed_s = static_cast<double>((now - f.updated).count_ps()) * 1e-12;
    f.remaining = std::max(0.0, f.remaining - f.rate * elapsed_s);
    f.updated = now;
  }
}

double FlowNetwork::bottleneck(uint32_t slot) const {
  // Alone in its component, the flow is every member of its links: more
  // than one where a route over link classes crosses a link more than once
  // (each crossing loads it, as the solver counts it in a larger component).
  double rate = std::numeric_limits<double>::infinity();
  for (const Hop& h : hops(slot)) {
    const LinkState& link = links_[h.link];
    rate = std::min(rate, link.capacity / link.member_count);
  }
  return rate;
}

void FlowNetwork::solve_rates() {
  if (walk_flows_.size() == 1) {  // a component of one flow: its bottleneck, O(hops)
    rates_.assign(1, bottleneck(walk_flows_.front()));
    return;
  }
  solver_.solve(problem_, rates_);  // built by the walk
}

void FlowNetwork::solve_component(sim::Simulation& sim) {
  if (walk_flows_.empty())
    return;
  solve_rates();
  ++counters_.solves;
  counters_.solved_flows += walk_flows_.size();

  const sim::Time now = sim.now();
  const bool alone = walk_flows_.size() == 1;
  const Phase phase = alone ? Phase::kAlone : Phase::kDraining;
  sim::Time first = sim::Time::max();
  for (size_t i = 0; i < walk_flows_.size(); ++i) {
    const uint32_t slot = walk_flows_[i];
    Flow& f = flows_[slot];
    // Walks reach a kAlone flow only through a link someone joined this
    // instant, and that join detached it if it had drained.
    assert(f.phase == Phase::kDraining || (f.phase == Phase::kAlone && f.drain_at > now));
    advance(f, now);
    const double rate = rates_[i];
    // Unchanged rate and role: the plan stands. A drain due now happens this
    // instant whatever its new rate, so it stands too.
    if (f.planned && ((rate == f.rate && f.phase == phase) || f.drain_at == now)) {
      f.rate = rate;
    } else {
      if (f.planned)
        ++counters_.reschedules;
      drop_event(sim, f);
      plan(sim, slot, rate, alone);
    }
    first = std::min(first, f.drain_at);
  }
  // Only the component's first drains need their events. When they come,
  // the flows left are walked from the links they leave (every part of the
  // component touches one) and planned again, so a later drain would be
  // cancelled before it came; until then no plan changes.
  for (const uint32_t slot : walk_flows_) {
    Flow& f = flows_[slot];
    if (f.drain_at != first) {
      drop_event(sim, f);
    } else if (!f.event.valid()) {
      schedule(sim, slot);
    }
  }
}

void FlowNetwork::schedule(sim::Simulation& sim, uint32_t slot) {
  Flow& f = flows_[slot];
  f.event =
      f.phase == Phase::kAlone
          ? sim.schedule_cancellable_at(f.drain_at + f.latency, *this,
                                        payload(slot, EventKind::kDelivered))
          : sim.schedule_cancellable_at(f.drain_at, *this, payload(slot, EventKind::kDrained));
}

void FlowNetwork::drop_event(sim::Simulation& sim, Flow& f) {
  if (f.event.valid()) {
    sim.cancel(f.event);
    f.event = sim::EventId{};
    ++counters_.cancels;
  }
}

void FlowNetwork::plan(sim::Simulation& sim, uint32_t slot, double rate, bool alone) {
  // A flow alone in its component keeps its rate until someone joins it: it
  // is planned straight to delivery. Others drain through an event, so that
  // their component is re-solved when they leave it.
  Flow& f = flows_[slot];
  if (f.phase == Phase::kAlone) {
    // Shared after all (walks reach a kAlone flow only then): the links
    // nobody joined yet take back what close() counted.
    for (const Hop& h : hops(slot)) {
      if (LinkState& link = links_[h.link]; link.closed)
        reopen(link, f.bytes, sim.now());
    }
  }
  f.rate = rate;
  f.phase = alone ? Phase::kAlone : Phase::kDraining;
  f.planned = true;
  if (f.remaining != last_drain_.remaining || rate != last_drain_.rate) {
    last_drain_ = LastDrain{f.remaining, rate, drain_time(f.remaining, rate)};
  }
  f.drain_at = sim.now() + last_drain_.time;
  if (alone)
    close(slot);
}

LinkStats FlowNetwork::link_stats(const sim::Simulation& sim) const {
  const sim::Time now = sim.now();
  // Only the links a transfer named have a record; the others carried
  // nothing (and reading their records would map every page of links_).
  LinkStats stats;
  stats.bytes.assign(links_.size(), 0);
  stats.busy.assign(links_.size(), sim::Time::zero());
  for (const topo::LinkId id : filled_) {
    const LinkState& link = links_[id];
    stats.bytes[id] = link.bytes;
    // A closed link's period ends at busy_since, which may still be ahead
    // (then the same sum takes the rest back).
    const bool idle = link.member_count == 0 || (link.closed && link.busy_since <= now);
    stats.busy[id] = idle ? link.busy : link.busy + (now - link.busy_since);
  }
  // Flows still draining have moved part of their bytes over every hop. A
  // kAlone flow's links count all of its bytes already (close()): past its
  // drain it has moved them, and before, it is still on all of them.
  for (uint32_t slot = 0; slot < flows_.capacity(); ++slot) {
    const Flow& f = flows_[slot];
    if (f.phase != Phase::kDraining && f.phase != Phase::kAlone)
      continue;
    if (f.phase == Phase::kAlone && f.drain_at <= now)
      continue;
    const double elapsed_s = static_cast<double>((now - f.updated).count_ps()) * 1e-12;
    const double left = std::max(0.0, f.remaining - f.rate * elapsed_s);
    const auto moved = static_cast<uint64_t>(std::clamp(
        std::floor(static_cast<double>(f.bytes) - left), 0.0, static_cast<double>(f.bytes)));
    for (const Hop& h : hops(slot)) {
      if (f.phase == Phase::kAlone) {
        stats.bytes[h.link] -= f.bytes - moved;
      } else {
        stats.bytes[h.link] += moved;
      }
    }
  }
  return stats;
}

}  // namespace podsim::net
