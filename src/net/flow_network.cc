#include "net/flow_network.h"

#include <algorithm>
#include <cmath>

#include "sim/simulation.h"

namespace podsim::net {
namespace {

constexpr uint64_t kKindBits = 1;

}  // namespace

FlowNetwork::FlowNetwork(const topo::Pod& pod, const Options& options)
    : table_(pod, options), links_(table_.size()) {
  for (topo::LinkId id = 0; id < table_.size(); ++id) {
    links_[id].capacity = static_cast<double>(table_.bandwidth(id).bytes_per_s());
  }
}

sim::EventId FlowNetwork::schedule(sim::Simulation& sim, sim::Time at, uint32_t slot,
                                   EventKind kind) {
  return sim.schedule_at(at, *this, (uint64_t{slot} << kKindBits) | static_cast<uint64_t>(kind));
}

void FlowNetwork::start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) {
  const auto route = table_.resolve(t, route_scratch_);
  const uint32_t slot = flows_.acquire();
  Flow& f = flows_[slot];
  f.sink = &sink;
  f.tag = tag;
  f.bytes = t.bytes;
  f.latency = table_.route_latency(route);
  f.hops.clear();
  if (route.empty() || t.bytes == 0) {  // nothing to drain: only the latency to pay
    f.phase = Phase::kLatency;
    f.event = schedule(sim, sim.now() + f.latency, slot, EventKind::kDelivered);
    return;
  }
  f.phase = Phase::kDraining;
  f.remaining = static_cast<double>(t.bytes);
  f.rate = 0;
  f.updated = sim.now();
  f.event = sim::EventId{};
  for (const topo::LinkId id : route)
    f.hops.push_back(Hop{id, 0});
  attach(slot, sim.now());

  begin_walk();
  visit_flow(slot);
  expand_walk();
  rebalance(sim);
}

void FlowNetwork::handle(sim::Simulation& sim, uint64_t payload) {
  const auto slot = static_cast<uint32_t>(payload >> kKindBits);
  if (static_cast<EventKind>(payload & 1) == EventKind::kDrained) {
    drained(sim, slot);
  } else {
    deliver(sim, slot);
  }
}

void FlowNetwork::drained(sim::Simulation& sim, uint32_t slot) {
  Flow& f = flows_[slot];
  f.remaining = 0;
  f.rate = 0;
  f.phase = Phase::kLatency;
  f.event = schedule(sim, sim.now() + f.latency, slot, EventKind::kDelivered);
  detach(slot, sim.now());
  // The flows left on its links (and whatever they connect to) share the
  // capacity it frees.
  begin_walk();
  for (const Hop& h : flows_[slot].hops)
    visit_link(h.link);
  expand_walk();
  rebalance(sim);
}

void FlowNetwork::deliver(sim::Simulation& sim, uint32_t slot) {
  Flow& f = flows_[slot];
  TransferSink* sink = f.sink;
  const uint64_t tag = f.tag;
  f.phase = Phase::kFree;
  flows_.release(slot);  // before the sink runs: it may start a transfer in this slot
  sink->delivered(sim, tag);
}

void FlowNetwork::attach(uint32_t slot, sim::Time now) {
  Flow& f = flows_[slot];
  for (uint32_t i = 0; i < f.hops.size(); ++i) {
    LinkState& link = links_[f.hops[i].link];
    if (link.members.empty())
      link.busy_since = now;
    f.hops[i].pos = static_cast<uint32_t>(link.members.size());
    link.members.push_back(Member{slot, i});
  }
}

void FlowNetwork::detach(uint32_t slot, sim::Time now) {
  const Flow& f = flows_[slot];
  for (const Hop& h : f.hops) {
    LinkState& link = links_[h.link];
    link.bytes += f.bytes;
    // Swap-remove: the last member takes this one's place and learns its new index.
    const Member last = link.members.back();
    link.members[h.pos] = last;
    flows_[last.flow].hops[last.hop].pos = h.pos;
    link.members.pop_back();
    if (link.members.empty())
      link.busy += now - link.busy_since;
  }
}

void FlowNetwork::begin_walk() {
  ++epoch_;
  walk_flows_.clear();
  walk_links_.clear();
}

void FlowNetwork::visit_flow(uint32_t slot) {
  Flow& f = flows_[slot];
  if (f.mark == epoch_)
    return;
  f.mark = epoch_;
  walk_flows_.push_back(slot);
}

void FlowNetwork::visit_link(topo::LinkId id) {
  LinkState& link = links_[id];
  if (link.mark == epoch_)
    return;
  link.mark = epoch_;
  link.local = static_cast<uint32_t>(walk_links_.size());
  walk_links_.push_back(id);
  for (const Member& m : link.members)
    visit_flow(m.flow);
}

void FlowNetwork::expand_walk() {
  // walk_flows_ doubles as the breadth-first queue: it grows while we scan it.
  for (size_t i = 0; i < walk_flows_.size(); ++i) {
    for (const Hop& h : flows_[walk_flows_[i]].hops)
      visit_link(h.link);
  }
}

void FlowNetwork::advance(Flow& f, sim::Time now) const {
  if (now > f.updated) {
    const double elapsed_s = static_cast<double>((now - f.updated).count_ps()) * 1e-12;
    f.remaining = std::max(0.0, f.remaining - f.rate * elapsed_s);
    f.updated = now;
  }
}

void FlowNetwork::rebalance(sim::Simulation& sim) {
  if (walk_flows_.empty())
    return;
  problem_.clear();
  for (const topo::LinkId id : walk_links_)
    problem_.add_link(links_[id].capacity);
  for (const uint32_t slot : walk_flows_) {
    for (const Hop& h : flows_[slot].hops)
      problem_.push_link(links_[h.link].local);
    problem_.end_flow();
  }
  solver_.solve(problem_, rates_);
  ++counters_.solves;
  counters_.solved_flows += walk_flows_.size();

  const sim::Time now = sim.now();
  for (size_t i = 0; i < walk_flows_.size(); ++i) {
    const uint32_t slot = walk_flows_[i];
    Flow& f = flows_[slot];
    advance(f, now);
    const double rate = rates_[i];
    if (f.event.valid()) {
      // Unchanged rate: the planned drain stands. Due now: it drains this
      // instant whatever its new rate, so leave the event be.
      if (rate == f.rate || f.event_time == now) {
        f.rate = rate;
        continue;
      }
      sim.cancel(f.event);
      ++counters_.reschedules;
    }
    f.rate = rate;
    f.event_time = now + drain_time(f.remaining, rate);
    f.event = schedule(sim, f.event_time, slot, EventKind::kDrained);
  }
}

LinkStats FlowNetwork::link_stats(const sim::Simulation& sim) const {
  const sim::Time now = sim.now();
  LinkStats stats;
  stats.bytes.reserve(links_.size());
  stats.busy.reserve(links_.size());
  for (const LinkState& link : links_) {
    stats.bytes.push_back(link.bytes);
    stats.busy.push_back(link.members.empty() ? link.busy : link.busy + (now - link.busy_since));
  }
  // Flows still draining have moved part of their bytes over every hop.
  for (uint32_t slot = 0; slot < flows_.capacity(); ++slot) {
    const Flow& f = flows_[slot];
    if (f.phase != Phase::kDraining)
      continue;
    const double elapsed_s = static_cast<double>((now - f.updated).count_ps()) * 1e-12;
    const double left = std::max(0.0, f.remaining - f.rate * elapsed_s);
    const auto moved = static_cast<uint64_t>(std::clamp(
        std::floor(static_cast<double>(f.bytes) - left), 0.0, static_cast<double>(f.bytes)));
    for (const Hop& h : f.hops)
      stats.bytes[h.link] += moved;
  }
  return stats;
}

}  // namespace podsim::net
