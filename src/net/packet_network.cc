#include "net/packet_network.h"

#include <algorithm>

#include "sim/simulation.h"

namespace podsim::net {
namespace {

// Payload layout: kind in bits 0-1, a (slot or link) in bits 2-33, b (hop) above.
constexpr uint64_t kKindBits = 2;
constexpr uint64_t kKindMask = (uint64_t{1} << kKindBits) - 1;
constexpr uint64_t kIdBits = 32;

}  // namespace

PacketNetwork::PacketNetwork(const topo::Pod& pod, const Options& options)
    : table_(pod, options),
      packet_bytes_(options.packet_bytes),
      cut_through_(options.switching == Switching::kCutThrough),
      links_(table_.size()) {
  for (topo::LinkId id = 0; id < table_.size(); ++id) {
    LinkState& link = links_[id];
    link.bandwidth = table_.bandwidth(id);
    link.latency = table_.latency(id);
    link.full_packet = sim::transfer_time(packet_bytes_, link.bandwidth);
  }
}

void PacketNetwork::schedule(sim::Simulation& sim, sim::Time at, EventKind kind, uint64_t a,
                             uint64_t b) {
  const uint64_t payload =
      static_cast<uint64_t>(kind) | (a << kKindBits) | (b << (kKindBits + kIdBits));
  sim.schedule_at(at, *this, payload);
}

void PacketNetwork::start(sim::Simulation& sim, const Transfer& t, TransferSink& sink,
                          uint64_t tag) {
  const auto route = table_.resolve(t, route_scratch_);
  const uint32_t slot = transfers_.acquire();
  PacketTransfer& pt = transfers_[slot];
  pt.sink = &sink;
  pt.tag = tag;
  pt.received = 0;
  pt.hops.clear();
  if (route.empty() || t.bytes == 0) {  // nothing to send: only the latency to pay
    pt.packets = 0;
    schedule(sim, sim.now() + table_.route_latency(route), EventKind::kDelivered, slot);
    return;
  }
  pt.packets = (t.bytes + packet_bytes_ - 1) / packet_bytes_;
  pt.last_bytes = t.bytes - (pt.packets - 1) * packet_bytes_;
  for (const topo::LinkId id : route) {
    HopState& h = pt.hops.emplace_back();
    h.link = id;
  }
  pt.hops[0].waiting = pt.packets;  // every packet starts at the source
  enqueue(route[0], HopRef{slot, 0});
  serve(sim, route[0]);
}

void PacketNetwork::handle(sim::Simulation& sim, uint64_t payload) {
  const auto a = static_cast<uint32_t>(payload >> kKindBits);
  const auto b = static_cast<uint32_t>(payload >> (kKindBits + kIdBits));
  switch (static_cast<EventKind>(payload & kKindMask)) {
    case EventKind::kLinkFree:
      link_free(sim, a);
      break;
    case EventKind::kArrived:
      arrived(sim, a, b);
      break;
    case EventKind::kReceived:
      received(sim, a);
      break;
    case EventKind::kDelivered:
      deliver(sim, a);
      break;
  }
}

void PacketNetwork::enqueue(topo::LinkId id, HopRef r) {
  LinkState& link = links_[id];
  HopState& h = hop_state(r);
  h.queued = true;
  h.next = HopRef{};
  if (link.tail.none()) {
    link.head = r;
  } else {
    hop_state(link.tail).next = r;
  }
  link.tail = r;
}

PacketNetwork::HopRef PacketNetwork::dequeue(topo::LinkId id) {
  LinkState& link = links_[id];
  const HopRef r = link.head;
  HopState& h = hop_state(r);
  link.head = h.next;
  if (link.head.none())
    link.tail = HopRef{};
  h.next = HopRef{};
  h.queued = false;
  return r;
}

sim::Time PacketNetwork::serialization(const LinkState& link, uint64_t packet_bytes) const {
  return packet_bytes == packet_bytes_ ? link.full_packet
                                       : sim::transfer_time(packet_bytes, link.bandwidth);
}

void PacketNetwork::serve(sim::Simulation& sim, topo::LinkId id) {
  LinkState& link = links_[id];
  if (link.sending || link.head.none())
    return;
  const HopRef r = dequeue(id);
  PacketTransfer& pt = transfers_[r.slot];
  HopState& h = pt.hops[r.hop];
  const uint64_t index = h.sent++;
  --h.waiting;
  if (h.waiting > 0)
    enqueue(id, r);  // round-robin: to the back of the queue

  const uint64_t size = index + 1 == pt.packets ? pt.last_bytes : packet_bytes_;
  const sim::Time ser = serialization(link, size);
  const sim::Time now = sim.now();
  link.sending = true;
  link.sending_bytes = size;
  link.busy += ser;
  link.busy_until = now + ser;
  schedule(sim, now + ser, EventKind::kLinkFree, id);

  const sim::Time tail_arrives = ser + link.latency;
  if (r.hop + 1 == pt.hops.size()) {
    schedule(sim, now + tail_arrives, EventKind::kReceived, r.slot);
    return;
  }
  sim::Time eligible = tail_arrives;  // store-and-forward
  if (cut_through_) {
    const LinkState& next = links_[pt.hops[r.hop + 1].link];
    eligible = std::max(link.latency, tail_arrives - serialization(next, size));
  }
  schedule(sim, now + eligible, EventKind::kArrived, r.slot, r.hop + 1);
}

void PacketNetwork::link_free(sim::Simulation& sim, topo::LinkId id) {
  LinkState& link = links_[id];
  link.sending = false;
  link.bytes += link.sending_bytes;
  serve(sim, id);
}

void PacketNetwork::arrived(sim::Simulation& sim, uint32_t slot, uint32_t hop) {
  const HopRef r{slot, hop};
  HopState& h = hop_state(r);
  ++h.waiting;
  if (!h.queued)
    enqueue(h.link, r);
  serve(sim, h.link);
}

void PacketNetwork::received(sim::Simulation& sim, uint32_t slot) {
  PacketTransfer& pt = transfers_[slot];
  if (++pt.received == pt.packets)
    deliver(sim, slot);
}

void PacketNetwork::deliver(sim::Simulation& sim, uint32_t slot) {
  const PacketTransfer& pt = transfers_[slot];
  TransferSink* sink = pt.sink;
  const uint64_t tag = pt.tag;
  transfers_.release(slot);  // before the sink runs: it may start a transfer in this slot
  sink->delivered(sim, tag);
}

LinkStats PacketNetwork::link_stats(const sim::Simulation& sim) const {
  const sim::Time now = sim.now();
  LinkStats stats;
  stats.bytes.reserve(links_.size());
  stats.busy.reserve(links_.size());
  for (const LinkState& link : links_) {
    stats.bytes.push_back(link.bytes);
    stats.busy.push_back(link.busy_until > now ? link.busy - (link.busy_until - now) : link.busy);
  }
  return stats;
}

}  // namespace podsim::net
