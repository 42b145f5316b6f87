// The analytical model: a closed form per transfer that sees contention
// through one number per directed link, the time until which it is booked.
//
// The rule. Every link l keeps free_l, the end of its last booking (initially
// zero). Transfers started at the same instant are booked together, at the
// end of that instant, smallest first (call order among equal sizes): the
// order in which fair sharing finishes transfers that start together, so the
// last to land on a busy link is its largest, as in the flow model. A
// transfer of B > 0 bytes booked at `now` books, on each link l of its route
// independently and in route order,
//   [begin_l, end_l) with begin_l = max(now, free_l),
//                         end_l   = begin_l + transfer_time(B, bandwidth_l),
// sets free_l = end_l, and is delivered at
//   max over its links of end_l + sum of the route's link latencies.
// So the most loaded link decides: N transfers that start together on one
// link all finish once it has carried their N x B bytes, the first booked at
// B / bandwidth, the last at N x B / bandwidth. A transfer alone on free links
// gets exactly the old closed form, transfer_time(B, slowest link) + latencies
// (transfer_time is monotone in the bandwidth), which analytical_time() below
// still computes. B == 0 books nothing and pays the latencies only; src == dst
// is delivered at once (through an event, like every delivery).
//
// Assumptions, and how the result compares with the flow model:
//  - FIFO per link, by start instant and then size: a link carries one
//    transfer at a time at its full bandwidth. Max-min shares it instead, so
//    per transfer this is earlier (booked first) or later (booked behind a
//    large one) than the flow model; the mean completion is lower, the last
//    one on a link the same when that link binds all its transfers. Booking
//    same-instant transfers smallest first matters where routes differ in
//    length: an all-to-all's last transfer is then a large one, as under
//    fair sharing, not whichever was started last (on a twisted v5p 8x16x16
//    all-to-all that brought this model from 12% above the flow model to 2%
//    below it).
//  - The links of one route are booked independently: the bytes are treated
//    as if they could wait between hops booked at different times
//    (store-and-forward), even cross a downstream link before an upstream one
//    booked later. A transfer held up on one link therefore does not hold up
//    its others: they carry its bytes at full rate and are then free, where
//    max-min would slow the flow to its bottleneck share on every link. That
//    is the optimism; it also makes a transfer queue behind bytes that
//    max-min would have spread thinly over a long time
//    (tests/net/conformance_contention_test.cc, MaxMinOverLinksOfUnequal-
//    Bandwidth: C comes 1.5x later than max-min gives it).
//  - Latency is paid once per route, after the last booking, as in the flow
//    model; links are not held for it.
//  On the bandwidth bound it is pessimistic nowhere: each link's bookings are
//  a work-conserving queue of the bytes offered to it from the moment their
//  transfers start, so its last booking ends at the earliest time any model
//  that respects the link's bandwidth (and cannot move bytes before their
//  transfer starts) can have carried them. For transfers started together,
//  the last booking ends exactly at max over links of bytes / bandwidth, and
//  the pattern completes that plus the latency of the transfer booked last
//  on the busiest link. Flow and packet drain no earlier than that bound
//  (max-min need not reach it; on the all-to-alls measured it does, all but
//  latency) and add the latency of the longest route among the flows that
//  drain last, so the two differ by about the spread of route latencies,
//  either way. Measured (tests/net/model_agreement_test.cc, all-to-all of
//  1-4 MiB blocks, 1 us hops): within 0.6% of flow on a ring of 8, 4x4 and
//  8x4 tori, a 4x4 mesh and a 4x4x4 torus. Where latency is a large part of
//  the time the spread shows: a 1 MiB all-to-all over a v5e line of 4 is
//  7.2 us here, 8.2 us in the flow model (one hop of latency).
//
// Link stats: bytes are counted when a transfer starts; busy is the union of
// the booked intervals clipped to now. Bookings on a link never overlap, so
// the union is their sum; a gap can only open before the call that ends it, so
// the part after now is exactly [now, free_l). Busy <= elapsed time, hence
// utilisation <= 1 on every link.
//
// Costs: start O(hops) (one transfer_time per change of bandwidth along the
// route, so one for a uniform route), plus an O(k log k) sort of the k
// transfers started at one instant; one event per transfer and one per
// instant with starts, 24 bytes per link, one small record per transfer in
// flight, no allocation in steady state (the batch's buffers are reused).
// Deterministic: bookings follow start time, size and call order only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "net/link_table.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "sim/event.h"

namespace podsim::net {

// The lone-transfer closed form: `bytes` over `route` (which must be a valid
// walk; it is not checked) on free links, with the efficiencies of `options`:
// transfer_time(bytes, slowest link) + sum of latencies. O(hops). Other layers
// use it for quick estimates; AnalyticalNetwork delivers a transfer at now +
// this when every link of its route is free.
sim::Time analytical_time(const topo::Pod& pod, std::span<const topo::LinkId> route, uint64_t bytes,
                          const Options& options);

class AnalyticalNetwork final : public Network, private sim::EventHandler {
 public:
  AnalyticalNetwork(const topo::Pod& pod, const Options& options);

  void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) override;
  Model model() const override { return Model::kAnalytical; }
  uint64_t in_flight() const override { return pending_.live(); }
  // O(links).
  LinkStats link_stats(const sim::Simulation& sim) const override;

 private:
  struct Pending {
    TransferSink* sink = nullptr;
    uint64_t tag = 0;
  };
  // A transfer started at the current instant, not booked yet.
  struct Starting {
    uint32_t slot = 0;
    uint64_t bytes = 0;
    std::span<const topo::LinkId> route;  // the caller's, or into owned_routes_
    uint32_t owned_begin = 0;             // offset into owned_routes_ when owned
    bool owned = false;
  };
  // Payload of the event that books the current instant's transfers.
  static constexpr uint64_t kBookBatch = ~uint64_t{0};
  struct Usage {
    uint64_t bytes = 0;
    sim::Time busy;  // sum of booked intervals, future part included
    sim::Time free;  // end of the last booking
  };

  // Delivers the transfer in slot `payload`, or books the batch.
  void handle(sim::Simulation& sim, uint64_t payload) override;
  void book_batch(sim::Simulation& sim);
  // Books `bytes` on every link of `route` from `now` (nothing when zero);
  // returns the delivery time: the latest end + the route's latency. O(hops).
  sim::Time book(std::span<const topo::LinkId> route, uint64_t bytes, sim::Time now);

  LinkTable links_;
  SlotPool<Pending> pending_;
  std::vector<Usage> usage_;  // indexed by LinkId
  std::vector<topo::LinkId> route_scratch_;
  std::vector<Starting> batch_;
  std::vector<topo::LinkId> owned_routes_;  // default routes of the batch
};

}  // namespace podsim::net
