// Simulated transfers per second of wall time for the network models. Each
// benchmark is registered once per model, named after it
// (BM_RingSteps/Analytical/..., /Flow/..., /Packet/...), so
// --benchmark_filter=Analytical picks the analytical model's cases.
//
//  BM_RingSteps: ring-step chains on an n x n x n torus (16: 4096 chips; 32:
//    32768). Every chip sends `bytes` to its neighbour along each of the 3
//    dimensions, both ways (6 n^3 chains, one per directed link); each
//    delivery makes the receiver forward to its next neighbour, `steps`
//    times: the traffic of a bidirectional ring collective on every axis at
//    once, which is what a 1 GiB all-reduce over a whole 32x32x32 torus does
//    (issue 13's case; coll_benchmark runs the collective itself). Each link
//    carries one flow at a time, so flow components have one flow each.
//    Unlike a collective, a chain forwards the moment it is delivered, so
//    about half of the starts find the link's last flow drained but not yet
//    delivered and take the link over (on the 32x32x32 all-reduce about 1.5%
//    do): the flow model does that from the link's record alone.
//    ns/event is the wall time per simulator event (issue 13: <= 200 ns).
//    The fourth argument, when 1, gives each transfer its one-link route
//    from the sink's table, as a collective's peer tables do
//    (coll/executor.h); 0 leaves it to the network's default route.
//  BM_SharedLink: `flows` transfers keep one link busy; each delivery starts
//    another, so the link always carries `flows` of them (one component of
//    `flows` flows, re-solved at every start and drain; for the analytical
//    model, a queue of `flows` bookings).
//  BM_AllToAll: every chip of an n x n x n torus sends `bytes` to every other
//    chip at once over the default route: n^3 (n^3 - 1) transfers sharing
//    every link (for n = 8, 261632 transfers of 6 hops on average).
//
// items_per_second = transfers delivered per second of wall time; the
// counters give simulator events (and, for BM_AllToAll, links crossed) per
// transfer, and for BM_RingSteps the wall time per event.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "net/network.h"
#include "sim/simulation.h"
#include "topo/pod.h"

namespace podsim::net {
namespace {

config::PodSpec torus_spec(uint32_t n, uint32_t dims) {
  static constexpr const char* kNames[] = {"x", "y", "z"};
  config::PodSpec spec;
  spec.name = "bench";
  spec.source_file = "<benchmark>";
  for (uint32_t d = 0; d < dims; ++d) {
    config::DimensionSpec dim;
    dim.name = kNames[d % 3];
    dim.size = n;
    dim.wraparound = n >= 3;
    dim.link_bandwidth = sim::Bandwidth::from_gbps(45);
    dim.hop_latency = sim::Time::ns(1000);
    spec.torus.dims.push_back(dim);
  }
  return spec;
}

// Tag layout: step << 40 | receiver << 8 | dim * 2 + (direction < 0).
// Like a collective's executor (coll/executor.h), the sink looks its next
// hop up in a table built once, (chip, way) -> the neighbour there and the
// link to it, and hints the network's kernel which entry a delivery will
// read (TransferSink::prefetch): the per-event cost measured is the
// network's and the kernel's, not that of working out a neighbour.
class RingSteps final : public TransferSink {
 public:
  RingSteps(const topo::Pod& pod, Network& network, uint64_t bytes, uint64_t steps, bool routed)
      : pod_(pod),
        network_(network),
        bytes_(bytes),
        steps_(steps),
        ways_(pod.dim_count() * 2),
        routed_(routed) {
    hops_.resize(static_cast<size_t>(pod.chip_count()) * ways_);
    for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
      for (uint32_t way = 0; way < ways_; ++way) {
        const int direction = way % 2 == 0 ? +1 : -1;
        const topo::LinkId link = *pod.link_from(c, way / 2, direction);
        hops_[static_cast<size_t>(c) * ways_ + way] = Hop{pod.link(link).dst, link};
      }
    }
  }

  void start_all(sim::Simulation& sim) {
    for (topo::ChipId c = 0; c < pod_.chip_count(); ++c) {
      for (uint32_t way = 0; way < ways_; ++way) {
        send(sim, c, way, 0);
      }
    }
  }

  void delivered(sim::Simulation& sim, uint64_t tag) override {
    ++delivered_;
    const uint64_t step = tag >> 40;
    if (step + 1 < steps_) {
      send(sim, static_cast<topo::ChipId>((tag >> 8) & 0xffffffffu),
           static_cast<uint32_t>(tag & 0xff), step + 1);
    }
  }
  void prefetch(uint64_t tag) const override {
    __builtin_prefetch(&hops_[((tag >> 8) & 0xffffffffu) * ways_ + (tag & 0xff)]);
  }

  uint64_t delivered_count() const { return delivered_; }

 private:
  struct Hop {
    topo::ChipId to = 0;
    topo::LinkId link = 0;
  };
  void send(sim::Simulation& sim, topo::ChipId from, uint32_t way, uint64_t step) {
    const Hop& hop = hops_[static_cast<size_t>(from) * ways_ + way];
    const uint64_t tag = step << 40 | uint64_t{hop.to} << 8 | way;
    std::span<const topo::LinkId> route;
    if (routed_) {
      route = {&hop.link, 1};
    }
    network_.start(sim, Transfer{from, hop.to, bytes_, route}, *this, tag);
  }

  const topo::Pod& pod_;
  Network& network_;
  uint64_t bytes_;
  uint64_t steps_;
  uint32_t ways_;
  bool routed_;
  uint64_t delivered_ = 0;
  std::vector<Hop> hops_;  // by chip x way
};

// Keeps `flows` transfers on link 0 -> 1 until `total` have been delivered.
class SharedLink final : public TransferSink {
 public:
  SharedLink(Network& network, uint64_t bytes, uint64_t total)
      : network_(network), bytes_(bytes), total_(total) {}

  void start(sim::Simulation& sim, uint64_t flows) {
    for (uint64_t i = 0; i < flows; ++i)
      send(sim, i);
  }
  void delivered(sim::Simulation& sim, uint64_t tag) override {
    ++delivered_;
    if (started_ < total_)
      send(sim, tag);
  }
  uint64_t delivered_count() const { return delivered_; }

 private:
  void send(sim::Simulation& sim, uint64_t i) {
    ++started_;
    // Sizes differ a little, so that flows drain one at a time.
    network_.start(sim, Transfer{0, 1, bytes_ + (started_ % 61) * 4096, {}}, *this, i);
  }

  Network& network_;
  uint64_t bytes_;
  uint64_t total_;
  uint64_t started_ = 0;
  uint64_t delivered_ = 0;
};

// Every chip sends to every other chip at once; counts deliveries.
class AllToAll final : public TransferSink {
 public:
  AllToAll(const topo::Pod& pod, Network& network, uint64_t bytes)
      : pod_(pod), network_(network), bytes_(bytes) {}

  void start_all(sim::Simulation& sim) {
    for (topo::ChipId src = 0; src < pod_.chip_count(); ++src) {
      for (topo::ChipId dst = 0; dst < pod_.chip_count(); ++dst) {
        if (src != dst)
          network_.start(sim, Transfer{src, dst, bytes_, {}}, *this, 0);
      }
    }
  }
  void delivered(sim::Simulation&, uint64_t) override { ++delivered_; }
  uint64_t delivered_count() const { return delivered_; }

 private:
  const topo::Pod& pod_;
  Network& network_;
  uint64_t bytes_;
  uint64_t delivered_ = 0;
};

Options options_for(Model model) {
  Options o;
  o.model = model;
  return o;
}

void BM_RingSteps(benchmark::State& state, Model model) {
  const topo::Pod pod(torus_spec(static_cast<uint32_t>(state.range(2)), 3));
  const Options options = options_for(model);
  const auto bytes = static_cast<uint64_t>(state.range(0));
  const auto steps = static_cast<uint64_t>(state.range(1));
  uint64_t transfers = 0;
  uint64_t events = 0;
  for (auto _ : state) {
    sim::Simulation sim;
    auto network = make_network(pod, options);
    RingSteps chains(pod, *network, bytes, steps, state.range(3) != 0);
    chains.start_all(sim);
    sim.run();
    transfers += chains.delivered_count();
    events += sim.events_executed();
  }
  state.SetItemsProcessed(static_cast<int64_t>(transfers));
  state.counters["events/transfer"] = static_cast<double>(events) / static_cast<double>(transfers);
  // Seconds per event, shown in ns: the rate counter inverted.
  state.counters["ns/event"] =
      benchmark::Counter(static_cast<double>(events) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(std::string(to_string(options.model)));
}

void BM_SharedLink(benchmark::State& state, Model model) {
  const topo::Pod pod(torus_spec(8, 1));
  const Options options = options_for(model);
  const auto flows = static_cast<uint64_t>(state.range(0));
  const uint64_t total = 20'000;
  uint64_t transfers = 0;
  for (auto _ : state) {
    sim::Simulation sim;
    auto network = make_network(pod, options);
    SharedLink load(*network, 256 * 1024, total);
    load.start(sim, flows);
    sim.run();
    transfers += load.delivered_count();
  }
  state.SetItemsProcessed(static_cast<int64_t>(transfers));
  state.SetLabel(std::string(to_string(options.model)));
}

void BM_AllToAll(benchmark::State& state, Model model) {
  const topo::Pod pod(torus_spec(static_cast<uint32_t>(state.range(0)), 3));
  const Options options = options_for(model);
  const auto bytes = static_cast<uint64_t>(state.range(1));
  uint64_t transfers = 0;
  uint64_t events = 0;
  uint64_t hops = 0;
  for (auto _ : state) {
    sim::Simulation sim;
    auto network = make_network(pod, options);
    AllToAll load(pod, *network, bytes);
    load.start_all(sim);
    sim.run();
    transfers += load.delivered_count();
    events += sim.events_executed();
    // Every byte-hop is booked once: links crossed = bytes moved over links / bytes.
    const LinkStats stats = network->link_stats(sim);
    for (const uint64_t b : stats.bytes)
      hops += b / bytes;
  }
  state.SetItemsProcessed(static_cast<int64_t>(transfers));
  state.counters["events/transfer"] = static_cast<double>(events) / static_cast<double>(transfers);
  state.counters["hops/transfer"] = static_cast<double>(hops) / static_cast<double>(transfers);
}

// {bytes per transfer, steps per chain, torus side n, routes from a table}: 6 n^3 chains x steps
// transfers. The 32x32x32 case takes the 16 steps of one way round a
// 32-chip bidirectional ring (the all-reduce's longest direction per phase).
BENCHMARK_CAPTURE(BM_RingSteps, Analytical, Model::kAnalytical)
    ->Args({1 << 20, 30, 16, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RingSteps, Flow, Model::kFlow)
    ->Args({1 << 20, 30, 16, 0})
    ->Args({1 << 20, 16, 32, 0})
    ->Args({1 << 20, 16, 32, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RingSteps, Packet, Model::kPacket)
    ->Args({1 << 20, 2, 16, 0})
    ->Unit(benchmark::kMillisecond);
// {flows sharing the link}.
BENCHMARK_CAPTURE(BM_SharedLink, Analytical, Model::kAnalytical)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SharedLink, Flow, Model::kFlow)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SharedLink, Packet, Model::kPacket)
    ->Arg(16)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
// {torus side n, bytes per transfer}.
BENCHMARK_CAPTURE(BM_AllToAll, Analytical, Model::kAnalytical)
    ->Args({4, 1 << 20})
    ->Args({8, 1 << 20})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllToAll, Flow, Model::kFlow)
    ->Args({4, 1 << 20})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace podsim::net
