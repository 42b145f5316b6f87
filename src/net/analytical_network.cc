#include "net/analytical_network.h"

#include <algorithm>

#include "sim/simulation.h"

namespace podsim::net {

sim::Time analytical_time(const topo::Pod& pod, std::span<const topo::LinkId> route, uint64_t bytes,
                          const Options& options) {
  if (route.empty())
    return sim::Time::zero();
  sim::Time latency;
  sim::Bandwidth slowest = effective_bandwidth(pod.link(route.front()), options);
  for (const topo::LinkId id : route) {
    const topo::Link& link = pod.link(id);
    latency += link.latency;
    slowest = std::min(slowest, effective_bandwidth(link, options));
  }
  return latency + sim::transfer_time(bytes, slowest);
}

AnalyticalNetwork::AnalyticalNetwork(const topo::Pod& pod, const Options& options)
    : links_(pod, options), usage_(links_.size()) {}

void AnalyticalNetwork::start(sim::Simulation& sim, const Transfer& t, TransferSink& sink,
                              uint64_t tag) {
  const auto route = links_.resolve(t, route_scratch_);
  sim::Time duration;
  if (!route.empty()) {
    const sim::Time stream = sim::transfer_time(t.bytes, links_.bottleneck(route));
    duration = stream + links_.route_latency(route);
    for (const topo::LinkId id : route)
      book(id, t.bytes, sim.now(), sim.now() + stream);
  }
  const uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{&sink, tag};
  sim.schedule_in(duration, *this, slot);
}

void AnalyticalNetwork::book(topo::LinkId id, uint64_t bytes, sim::Time from, sim::Time to) {
  // Intervals arrive in order of their start (from == now), so the union grows
  // only at its end: O(1) per interval.
  Usage& u = usage_[id];
  u.bytes += bytes;
  const sim::Time begin = std::max(from, u.busy_until);
  if (to > begin) {
    u.busy += to - begin;
    u.busy_until = to;
  }
}

void AnalyticalNetwork::handle(sim::Simulation& sim, uint64_t payload) {
  const auto slot = static_cast<uint32_t>(payload);
  const Pending p = pending_[slot];
  pending_.release(slot);
  p.sink->delivered(sim, p.tag);
}

LinkStats AnalyticalNetwork::link_stats(const sim::Simulation& sim) const {
  LinkStats stats;
  stats.bytes.reserve(usage_.size());
  stats.busy.reserve(usage_.size());
  for (const Usage& u : usage_) {
    stats.bytes.push_back(u.bytes);
    // Every booked interval started at or before now, so the part of the union
    // after now is exactly [now, busy_until).
    stats.busy.push_back(u.busy_until > sim.now() ? u.busy - (u.busy_until - sim.now()) : u.busy);
  }
  return stats;
}

}  // namespace podsim::net
