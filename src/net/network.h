// The net layer: how bytes move over the pod's links.
//
// One interface, three models (chosen per run with --network):
//  - analytical: a closed form per transfer that sees contention. Every
//    directed link keeps the time until which it is booked; the transfers
//    that start at one instant share each link of their routes from then as
//    fair sharing would if nothing else came (processor sharing), later ones
//    queue behind; a transfer is delivered at its latest end over its links
//    + the sum of the route's link latencies. The most loaded link decides,
//    so utilisation never exceeds 1; a lone transfer takes bytes / slowest
//    link + latencies. O(hops) and one event per transfer, no rate solve.
//  - flow (default): every transfer is a flow along its route; each directed
//    link's bandwidth is shared max-min fairly among the flows crossing it.
//    Rates are recomputed only for the connected component of flows (linked
//    through shared links) that a starting or finishing flow touches, so the
//    cost of disjoint flows does not grow with the pod. Latency is counted once
//    per route, after the last byte leaves the bottleneck.
//  - packet: transfers are cut into packets that queue on each directed link
//    and move hop by hop, store-and-forward or cut-through, for congestion
//    and buffering studies.
// On a contention-free pattern the three agree; on contended ones (all-to-all)
// they agree on the completion time (tests/net/ says how closely).
//
// A Network does not own the Simulation; every call that schedules takes it
// explicitly. Callers learn of delivery through a TransferSink (a typed
// interface plus a 64-bit tag, so starting a transfer never allocates a
// closure).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::net {

// Told when the last byte of a transfer has arrived at its destination.
// Implementations must outlive the transfers they are sinks for.
class TransferSink {
 public:
  virtual void delivered(sim::Simulation& sim, uint64_t tag) = 0;
  // A hint given shortly before delivered(sim, tag) (sim::EventHandler's
  // prefetch_indirect): start loading what it will read. It must change
  // nothing; the default does nothing.
  virtual void prefetch(uint64_t tag) const { static_cast<void>(tag); }

 protected:
  TransferSink() = default;
  TransferSink(const TransferSink&) = default;
  TransferSink& operator=(const TransferSink&) = default;
  ~TransferSink() = default;
};

struct Transfer {
  topo::ChipId src = 0;
  topo::ChipId dst = 0;
  uint64_t bytes = 0;
  // The links to cross, in order. Empty: the pod's default route (topo::route).
  // A zero-byte transfer still pays the route's latency. The caller keeps the
  // storage alive until delivery (collectives precompute their routes once), so
  // the network may hold on to the span without copying it.
  std::span<const topo::LinkId> route;
  // The route is over link classes (a symmetric run, topo/symmetry.h): each
  // entry the representative of the class of the link crossed there, so it
  // need not be a walk and may name a link more than once (the transfer then
  // loads it that many times, as its copies load the class's links). It is
  // taken as given, never checked as a walk nor replaced by a default route.
  // The flow and analytical models; the packet model refuses it.
  bool over_classes = false;
};

enum class Model { kAnalytical, kFlow, kPacket };
enum class Switching { kStoreAndForward, kCutThrough };

struct Options {
  Model model = Model::kFlow;
  // Packet model only.
  uint64_t packet_bytes = 64 * 1024;
  Switching switching = Switching::kCutThrough;
  // Fraction of published bandwidth achieved (the pod's calibration knobs).
  double ici_efficiency = 1.0;
  double dcn_efficiency = 1.0;
};

// What every link carried over a run; indexed by LinkId.
struct LinkStats {
  std::vector<uint64_t> bytes;  // bytes that crossed the link
  std::vector<sim::Time> busy;  // time the link was carrying at least one byte
};

class Network {
 public:
  virtual ~Network() = default;
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Begins moving `t.bytes` from t.src to t.dst now; calls sink.delivered(sim,
  // tag) when the last byte has arrived. src == dst delivers at once (still
  // through an event, never re-entrantly).
  virtual void start(sim::Simulation& sim, const Transfer& t, TransferSink& sink, uint64_t tag) = 0;

  virtual Model model() const = 0;
  // Transfers started and not yet delivered.
  virtual uint64_t in_flight() const = 0;
  // Link statistics up to the simulation's current time.
  virtual LinkStats link_stats(const sim::Simulation& sim) const = 0;

 protected:
  Network() = default;
};

// The model options.model names. The network keeps a reference to `pod`, which
// must outlive it. Throws std::invalid_argument on bad options (packet_bytes of
// zero, an efficiency outside (0, 1]) or a link left with no bandwidth.
std::unique_ptr<Network> make_network(const topo::Pod& pod, const Options& options);

std::string_view to_string(Model m);
std::optional<Model> parse_model(std::string_view name);  // "analytical", "flow", "packet"
std::string_view to_string(Switching s);
// "store-and-forward", "cut-through"
std::optional<Switching> parse_switching(std::string_view name);

}  // namespace podsim::net
