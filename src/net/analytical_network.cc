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
    : links_(pod, options), usage_(links_.size()), marked_(links_.size()) {}

void AnalyticalNetwork::start(sim::Simulation& sim, const Transfer& t, TransferSink& sink,
                              uint64_t tag) {
  // Over link classes (a symmetric run) the route names each class's
  // representative once per link of that class it crosses, and books it that
  // many times: on the full run's representative link those are the copies of
  // this transfer that cross it, all of its size, all started now. Equal
  // transfers started together end together however the batch orders them
  // (book_batch), so the representative link's bookings, and this transfer's
  // end, are the full run's exactly.
  const auto route = t.over_classes ? links_.class_route(t) : links_.resolve(t, route_scratch_);
  const uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{&sink, tag};
  if (batch_.empty()) {
    // Last at this instant, after every start the instant's other events make.
    sim.schedule_at(sim.now(), *this, kBookBatch, sim::kLastPriority);
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
  const sim::Time now = sim.now();
  uses_.clear();
  ends_.assign(batch_.size(), now);
  latencies_.assign(batch_.size(), sim::Time::zero());
  for (uint32_t i = 0; i < batch_.size(); ++i) {
    const Starting& s = batch_[i];
    for (const topo::LinkId id : route_of(s)) {
      latencies_[i] += links_.latency(id);
      // Zero bytes occupy no link: they pay the latencies only, however busy
      // the links are (as in the flow and packet models).
      if (s.bytes > 0) {
        uses_.push_back(Use{id, s.bytes, i});
      }
    }
  }
  // Per link, its transfers of this instant smallest first: processor
  // sharing from when the link is free. The one of b bytes ends when every
  // transfer still on the link has moved b: after the smaller ones' bytes
  // and b for each of the k - j still running; the largest when the link has
  // carried them all. Equal transfers end together, as under fair sharing.
  std::sort(uses_.begin(), uses_.end(), [](const Use& a, const Use& b) {
    return a.link != b.link ? a.link < b.link
                            : (a.bytes != b.bytes ? a.bytes < b.bytes : a.index < b.index);
  });
  for (size_t g = 0; g < uses_.size();) {
    size_t e = g;
    while (e < uses_.size() && uses_[e].link == uses_[g].link) {
      ++e;
    }
    Usage& u = usage_[uses_[g].link];
    disturbed_ = disturbed_ || (!laid_until_.empty() && now < laid_until_[uses_[g].link]);
    const sim::Bandwidth bandwidth = links_.bandwidth(uses_[g].link);
    const sim::Time start = std::max(now, u.free);
    uint64_t done = 0;  // bytes of the transfers that have ended
    for (size_t j = g; j < e; ++j) {
      const uint64_t b = uses_[j].bytes;
      const sim::Time end = start + sim::transfer_time(done + (e - j) * b, bandwidth);
      ends_[uses_[j].index] = std::max(ends_[uses_[j].index], end);
      done += b;
    }
    const sim::Time stream = sim::transfer_time(done, bandwidth);
    if (u.bytes == 0) {
      used_.push_back(uses_[g].link);
    }
    u.bytes += done;
    u.busy += stream;
    u.free = start + stream;
    g = e;
  }
  for (uint32_t i = 0; i < batch_.size(); ++i) {
    sim.schedule_at(ends_[i] + latencies_[i], *this, batch_[i].slot);
  }
  batch_.clear();
  owned_routes_.clear();
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

std::vector<AnalyticalNetwork::Booking> AnalyticalNetwork::bookings() const {
  std::vector<topo::LinkId> used = used_;
  std::sort(used.begin(), used.end());
  std::vector<Booking> out;
  out.reserve(used.size());
  for (const topo::LinkId id : used) {
    const Usage& u = usage_[id];
    out.push_back(Booking{id, u.bytes, u.busy, u.free});
  }
  return out;
}

bool AnalyticalNetwork::idle(std::span<const Booking> links, sim::Time now) const {
  bool idle = true;
  for (const Booking& b : links) {
    idle = idle && usage_[b.link].free <= now;
    marked_[b.link] = 1;
  }
  for (const Starting& s : batch_) {
    if (s.bytes == 0) {
      continue;  // books nothing
    }
    for (const topo::LinkId id : route_of(s)) {
      idle = idle && marked_[id] == 0;
    }
  }
  for (const Booking& b : links) {
    marked_[b.link] = 0;
  }
  return idle;
}

void AnalyticalNetwork::book(std::span<const Booking> bookings, sim::Time start) {
  if (laid_until_.empty()) {
    laid_until_ = ZeroedArray<sim::Time>(usage_.size());
  }
  for (const Booking& b : bookings) {
    Usage& u = usage_[b.link];
    if (u.bytes == 0 && b.bytes > 0) {
      used_.push_back(b.link);
    }
    u.bytes += b.bytes;
    u.busy += b.busy;
    u.free = std::max(u.free, start + b.free);
    laid_until_[b.link] = std::max(laid_until_[b.link], start + b.free);
  }
}

}  // namespace podsim::net
