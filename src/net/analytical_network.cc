#include "net/analytical_network.h"

#include <algorithm>
#include <limits>

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
  const uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{&sink, tag};
  if (batch_.empty()) {
    // Last at this instant, after every start the instant's other events make.
    sim.schedule_at(sim.now(), *this, kBookBatch, std::numeric_limits<int>::max());
  }
  Starting s{slot, t.bytes, route, 0, false};
  if (t.route.empty()) {
    // The default route lives in the scratch buffer: keep a copy.
    s.owned = true;
    s.owned_begin = static_cast<uint32_t>(owned_routes_.size());
    owned_routes_.insert(owned_routes_.end(), route.begin(), route.end());
  }
  batch_.push_back(s);
}

void AnalyticalNetwork::book_batch(sim::Simulation& sim) {
  // Smallest first, call order among equals: the order in which fair sharing
  // would finish transfers that start together, so the last to land on a
  // busy link is its largest transfer, as in the flow model.
  std::stable_sort(batch_.begin(), batch_.end(),
                   [](const Starting& a, const Starting& b) { return a.bytes < b.bytes; });
  for (const Starting& s : batch_) {
    const std::span<const topo::LinkId> route =
        s.owned
            ? std::span<const topo::LinkId>(owned_routes_.data() + s.owned_begin, s.route.size())
            : s.route;
    sim.schedule_at(book(route, s.bytes, sim.now()), *this, s.slot);
  }
  batch_.clear();
  owned_routes_.clear();
}

sim::Time AnalyticalNetwork::book(std::span<const topo::LinkId> route, uint64_t bytes,
                                  sim::Time now) {
  // One pass over the route: its latency, and (bytes > 0) its bookings.
  // Zero bytes occupy no link: they pay the latencies only, however busy the
  // links are (as in the flow and packet models).
  sim::Time latest = now;
  sim::Time latency;
  // Routes mostly cross links of one bandwidth: divide once per change of it.
  sim::Bandwidth last_bandwidth;
  sim::Time stream;
  for (const topo::LinkId id : route) {
    latency += links_.latency(id);
    if (bytes == 0)
      continue;
    const sim::Bandwidth bandwidth = links_.bandwidth(id);
    if (bandwidth != last_bandwidth) {
      stream = sim::transfer_time(bytes, bandwidth);
      last_bandwidth = bandwidth;
    }
    Usage& u = usage_[id];
    const sim::Time end = std::max(now, u.free) + stream;
    u.bytes += bytes;
    u.busy += stream;
    u.free = end;
    latest = std::max(latest, end);
  }
  return latest + latency;
}

void AnalyticalNetwork::handle(sim::Simulation& sim, uint64_t payload) {
  if (payload == kBookBatch) {
    book_batch(sim);
    return;
  }
  const auto slot = static_cast<uint32_t>(payload);
  const Pending p = pending_[slot];
  pending_.release(slot);
  p.sink->delivered(sim, p.tag);
}

LinkStats AnalyticalNetwork::link_stats(const sim::Simulation& sim) const {
  const sim::Time now = sim.now();
  LinkStats stats;
  stats.bytes.reserve(usage_.size());
  stats.busy.reserve(usage_.size());
  for (const Usage& u : usage_) {
    stats.bytes.push_back(u.bytes);
    // Bookings never overlap, and a gap between two of them closes no later
    // than the call that made the second, so the booked time after now is
    // exactly [now, free).
    stats.busy.push_back(u.free > now ? u.busy - (u.free - now) : u.busy);
  }
  return stats;
}

}  // namespace podsim::net
