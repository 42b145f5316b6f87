// The analytical model: a closed form per transfer that sees contention
// through one number per directed link, the time until which it is booked.
//
// The rule. Every link l keeps free_l, the end of its last booking (initially
// zero). The transfers started at one instant are booked together, at the
// end of that instant (a late-priority event), on each link of their routes
// independently: from begin_l = max(now, free_l), the link is shared among
// them as fair sharing would share it if nothing else came -- processor
// sharing: taken smallest first, the j-th of k (b_j bytes) ends at
//   begin_l + transfer_time(b_1 + ... + b_{j-1} + (k - j + 1) b_j, bandwidth_l),
// when every transfer still on the link has moved b_j; the largest when the
// link has carried them all, which becomes free_l. A transfer is delivered at
//   max over its links of its end there + sum of the route's link latencies.
// So the most loaded link decides: N transfers of B bytes that start together
// on one link all end once it has carried their N x B bytes. Transfers that
// start later queue behind (first come, first served, per instant). A
// transfer alone on free links gets exactly the old closed form,
// transfer_time(B, slowest link) + latencies (transfer_time is monotone in
// the bandwidth), which analytical_time() below still computes. B == 0 books
// nothing and pays the latencies only; src == dst is delivered at once
// (through an event, like every delivery).
//
// Assumptions, and how the result compares with the flow model:
//  - Fair sharing among transfers that start together, FIFO between instants:
//    max-min would also slow a transfer already running when a new one
//    arrives. Sharing the instant's transfers (rather than serving them in
//    call order) keeps the shares of a multi-dimension collective in step,
//    as they are under fair sharing: served first come first served, one
//    share would run ahead, reach the next dimension while another is still
//    on it, and the two would then collide there (a hierarchical all-reduce
//    over two v5e 16x16 slices came out 36% above the flow model that way).
//    And an all-to-all's last transfer on a link is then its largest, as
//    under fair sharing, not whichever was started last.
//  - The links of one route are shared independently: the bytes are treated
//    as if they could wait between hops (store-and-forward), even cross a
//    downstream link before an upstream one. A transfer held up on one link
//    therefore does not hold up its others: they carry its bytes at their
//    share and are then free, where max-min would slow the flow to its
//    bottleneck share on every link. That is the optimism; it also makes a
//    transfer queue behind bytes that max-min would have spread thinly over a
//    long time (tests/net/conformance_contention_test.cc, MaxMinOverLinksOf-
//    UnequalBandwidth).
//  - Latency is paid once per route, after the last byte, as in the flow
//    model; links are not held for it.
//  On the bandwidth bound it is pessimistic nowhere: each link's bookings are
//  a work-conserving queue of the bytes offered to it from the moment their
//  transfers start, so its last booking ends at the earliest time any model
//  that respects the link's bandwidth (and cannot move bytes before their
//  transfer starts) can have carried them. For transfers started together,
//  the last booking ends exactly at max over links of bytes / bandwidth, and
//  the pattern completes that plus the latency of the largest transfers on
//  the busiest link. Measured (tests/net/model_agreement_test.cc and
//  tests/engine/model_agreement_test.cc): within 5% of flow on every shipped
//  operation list and on all-to-alls over rings, lines, tori and twisted tori.
//  Not on the rotated shares of one multi-dimension collective when they
//  meet on links out of step: exact for each share alone, it is 15% above
//  flow on an all-reduce over the lines of a twisted v5p 4x4x8 (FIFO between
//  instants) and 6% below on its x cycle (hops booked independently), so it
//  may rank schedules differently from flow (tests/coll/choose_test.cc); that
//  is why coll/choose.h chooses on the run's own model. On faulty pods the
//  shares of such a collective fall out of step, and the same queueing puts
//  it from 10.5% below to 24.3% above flow (docs/architecture.md, "The network
//  models on faulty pods"; tests/engine/fault_agreement_test.cc).
//
// Link stats: bytes are counted when a transfer starts; busy is the union of
// the booked intervals clipped to now. Bookings on a link never overlap, so
// the union is their sum; a gap can only open before the call that ends it, so
// the part after now is exactly [now, free_l). Busy <= elapsed time, hence
// utilisation <= 1 on every link.
//
// Costs: per instant with starts, O(H log H) for the H (link, transfer)
// pairs of its transfers' routes (a sort by link and size) and one
// transfer_time per pair; one event per transfer and one per instant, 24
// bytes per link (left unwritten until a transfer uses the link), one small
// record per transfer in flight, no allocation in steady state (the batch's
// buffers are reused). Deterministic: bookings
// follow start time, size and call order only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "net/link_table.h"
#include "net/network.h"
#include "net/slot_pool.h"
#include "net/zeroed_array.h"
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

  // What one link has been booked for: its bytes, the sum of its booked
  // intervals and the end of the last one. coll/replay.h records a
  // collective's bookings on a network of its own and lays them onto this
  // one instead of playing its transfers again.
  struct Booking {
    topo::LinkId link = 0;
    uint64_t bytes = 0;
    sim::Time busy;
    sim::Time free;
  };
  // Every link that has carried bytes, in LinkId order. O(L log L) for the
  // L links that have.
  std::vector<Booking> bookings() const;
  // True when no link of `links` is booked past `now` or carries a transfer
  // started at this instant and not booked yet. O(|links| + the instant's
  // hops).
  bool idle(std::span<const Booking> links, sim::Time now) const;
  // Adds each booking, its end shifted by `start`, to its link: bytes and busy
  // add up, and the link is booked until start + free. The links should be
  // idle() at start. A transfer that is then booked on one of those links
  // before start + free would, had the bookings' transfers been played,
  // have shared the link with them: that is recorded (replay_disturbed), not
  // prevented, and the caller plays the run again without laying bookings.
  // Laid bookings may have gaps, so link_stats() counts their busy time
  // exactly once now has passed start + free (as at the end of a run).
  void book(std::span<const Booking> bookings, sim::Time start);
  // True once a transfer was booked on a link within bookings laid by book().
  bool replay_disturbed() const { return disturbed_; }

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
  // A starting transfer's links: the caller's, or its copy of the default route.
  std::span<const topo::LinkId> route_of(const Starting& s) const {
    return s.owned
               ? std::span<const topo::LinkId>(owned_routes_.data() + s.owned_begin, s.route.size())
               : s.route;
  }
  LinkTable links_;
  SlotPool<Pending> pending_;
  // Indexed by LinkId, zeroed until a transfer or a booking first names the
  // link (net/zeroed_array.h): a symmetric run on a large torus, and each
  // recording of a collective (coll/replay.h), touch a few of its links.
  ZeroedArray<Usage> usage_;
  std::vector<topo::LinkId> used_;  // the links with bytes, in the order they got them
  std::vector<topo::LinkId> route_scratch_;
  // One link of one batch transfer's route, for the per-link booking.
  struct Use {
    topo::LinkId link = 0;
    uint64_t bytes = 0;
    uint32_t index = 0;  // into batch_
  };
  std::vector<Starting> batch_;
  std::vector<topo::LinkId> owned_routes_;  // default routes of the batch
  // Scratch of book_batch(), kept so that steady state allocates nothing.
  std::vector<Use> uses_;
  std::vector<sim::Time> ends_;
  std::vector<sim::Time> latencies_;
  mutable ZeroedArray<uint8_t> marked_;  // idle()'s scratch, one flag per link
  // Per link: end of bookings laid by book(); allocated by the first book().
  ZeroedArray<sim::Time> laid_until_;
  bool disturbed_ = false;
};

}  // namespace podsim::net
