// The packet model: transfers are cut into packets that queue at every
// directed link of their route and cross it one at a time, hop by hop.
//
// Packets. A transfer of B bytes is ceil(B / packet_bytes) packets, all of
// packet_bytes but the last (B mod packet_bytes, when not zero). A link sends
// one packet at a time; sending takes the packet's serialization time,
// sim::transfer_time(packet bytes, effective bandwidth), and the packet then
// needs the link's latency to reach the far end.
//
// Switching. Store-and-forward: a packet may be sent on the next link once it
// has fully arrived (serialization + latency after it began on this link), so
// a single transfer of P packets over H equal hops takes
//   P x ser + H x latency + (H - 1) x ser.
// Cut-through: the next link may begin a packet once its head has arrived
// (latency after it began here) but cannot finish it before its tail has
// arrived. Approximation: instead of starting at the head and stalling, the
// packet becomes eligible on the next link at
//   begin + max(latency, ser_here + latency - ser_next),
// the latest start that still finishes no earlier than the tail arrives; on
// equal or slowing links that is just the head's arrival. A single transfer
// then takes P x ser + H x latency, like the flow model's bytes / bandwidth +
// hops x latency.
//
// Arbitration. Each link serves, round-robin, the transfers that have packets
// waiting at it: one packet of the first, then it goes to the back of the
// queue if it has more. Two transfers on one link each get half of it.
// Buffers are unbounded: no credit-based flow control, no drops.
//
// State is not per packet: per (transfer, hop) a count of packets waiting and
// sent, and per link an intrusive FIFO of (transfer, hop) entries with packets
// waiting. Events: per packet and hop, one for the link finishing it and one
// for its arrival downstream, so O(packets x hops) events per transfer, and
// O(packets in flight on wires) pending at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "net/link_table.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "sim/event.h"

namespace podsim::net {

class PacketNetwork final : public Network, private sim::EventHandler {
 public:
  PacketNetwork(const topo::Pod& pod, const Options& options);

  void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) override;
  Model model() const override { return Model::kPacket; }
  uint64_t in_flight() const override { return transfers_.live(); }
  // O(links).
  LinkStats link_stats(const sim::Simulation& sim) const override;

 private:
  // Names one hop of one transfer: the unit of round-robin at a link.
  struct HopRef {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t slot = kNone;
    uint32_t hop = 0;
    bool none() const { return slot == kNone; }
  };
  struct HopState {
    topo::LinkId link = 0;
    uint64_t waiting = 0;  // packets here, not yet sent on `link`
    uint64_t sent = 0;     // packets sent on `link`; the next to go is packet `sent`
    bool queued = false;   // in the link's round-robin queue
    HopRef next;           // next in that queue
  };
  struct PacketTransfer {
    TransferSink* sink = nullptr;
    uint64_t tag = 0;
    uint64_t packets = 0;
    uint64_t last_bytes = 0;  // size of the final packet
    uint64_t received = 0;    // packets fully arrived at the destination
    std::vector<HopState> hops;
  };
  struct LinkState {
    sim::Bandwidth bandwidth;
    sim::Time latency;
    sim::Time full_packet;  // serialization time of a packet of packet_bytes
    bool sending = false;
    uint64_t sending_bytes = 0;
    HopRef head, tail;   // round-robin queue of hops with packets waiting
    uint64_t bytes = 0;  // of packets fully sent
    sim::Time busy;      // serialization time booked, up to busy_until
    sim::Time busy_until;
  };
  enum class EventKind : uint64_t { kLinkFree = 0, kArrived = 1, kReceived = 2, kDelivered = 3 };

  void handle(sim::Simulation& sim, uint64_t payload) override;
  void link_free(sim::Simulation& sim, topo::LinkId id);
  void arrived(sim::Simulation& sim, uint32_t slot, uint32_t hop);
  void received(sim::Simulation& sim, uint32_t slot);
  void deliver(sim::Simulation& sim, uint32_t slot);

  HopState& hop_state(HopRef r) { return transfers_[r.slot].hops[r.hop]; }
  void enqueue(topo::LinkId id, HopRef r);
  HopRef dequeue(topo::LinkId id);
  // Starts the next packet on an idle link with packets waiting.
  void serve(sim::Simulation& sim, topo::LinkId id);
  sim::Time serialization(const LinkState& link, uint64_t packet_bytes) const;
  void schedule(sim::Simulation& sim, sim::Time at, EventKind kind, uint64_t a, uint64_t b = 0);

  LinkTable table_;
  uint64_t packet_bytes_;
  bool cut_through_;
  std::vector<LinkState> links_;  // indexed by LinkId
  SlotPool<PacketTransfer> transfers_;
  std::vector<topo::LinkId> route_scratch_;
};

}  // namespace podsim::net
