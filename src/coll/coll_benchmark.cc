// Whole collectives simulated end to end: 1 GiB all-reduce over every axis of
// a v5e-like 16x16 torus, of a 16x16x16 and of a 32x32x32 torus (32768
// chips, issue 13's case: ns/event is the wall time per simulator event, at
// most 200 ns wanted) on the flow model, and the 16x16
// one with the packet model at 64 KiB packets; a 4 GiB all-to-all over a
// 4x4x4 torus (1 MiB per pair: 4032+ flows start at once in one component,
// the case the flow model's one-solve-per-instant batching is for). Reports
// simulated transfers per second of wall time; the wall time per iteration is
// the figure the targets speak of (flow model, 4096 chips: under 1 s).
#include <benchmark/benchmark.h>

#include "coll/executor.h"
#include "coll/plan.h"
#include "config/topology_spec.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll {
namespace {

config::PodSpec torus(uint32_t dims, uint32_t size) {
  config::PodSpec spec;
  spec.name = "bench";
  spec.chip.name = "v5e-like";
  spec.chip.peak_bf16_flops = 1.97e14;
  spec.chip.hbm_bytes = 16'000'000'000;
  spec.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  spec.chip.ici_ports = 2 * dims;
  const char* names[] = {"x", "y", "z"};
  for (uint32_t d = 0; d < dims; ++d) {
    config::DimensionSpec dim;
    dim.name = names[d];
    dim.size = size;
    dim.wraparound = true;
    dim.link_bandwidth = sim::Bandwidth::from_gbps(50);
    dim.hop_latency = sim::Time::us(1);
    spec.torus.dims.push_back(dim);
  }
  return spec;
}

void run_collective(benchmark::State& state, uint32_t dims, uint32_t size,
                    config::CollectiveKind kind, uint64_t bytes, net::Model model) {
  const topo::Pod pod(torus(dims, size));
  std::vector<topo::MeshAxisSpec> axes;
  std::vector<std::string> names;
  for (uint32_t d = 0; d < dims; ++d) {
    axes.push_back({pod.spec().torus.dims[d].name, {d}});
    names.push_back(pod.spec().torus.dims[d].name);
  }
  const topo::DeviceMesh mesh(pod, axes);
  config::CollectiveSpec c;
  c.kind = kind;
  c.bytes = bytes;
  c.axes = names;
  net::Options options;
  options.model = model;
  const Plan plan = lower(pod, mesh, c, options);
  uint64_t transfers = 0;
  uint64_t events = 0;
  double simulated_us = 0;
  for (auto _ : state) {
    auto network = net::make_network(pod, options);
    sim::Simulation sim;
    CollectiveRun run(pod, *network, plan);
    run.start(sim);
    sim.run();
    transfers += run.transfers_delivered();
    events += sim.events_executed();
    simulated_us = (run.end_time() - run.start_time()).to_us();
  }
  state.counters["transfers_per_s"] =
      benchmark::Counter(static_cast<double>(transfers), benchmark::Counter::kIsRate);
  state.counters["simulated_us"] = simulated_us;
  state.counters["ns/event"] =
      benchmark::Counter(static_cast<double>(events) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void all_reduce(benchmark::State& state, uint32_t dims, net::Model model, uint32_t size = 16) {
  run_collective(state, dims, size, config::CollectiveKind::kAllReduce, uint64_t{1} << 30, model);
}

void BM_AllReduce1GiB_16x16_Flow(benchmark::State& s) {
  all_reduce(s, 2, net::Model::kFlow);
}
void BM_AllReduce1GiB_16x16x16_Flow(benchmark::State& s) {
  all_reduce(s, 3, net::Model::kFlow);
}
void BM_AllReduce1GiB_32x32x32_Flow(benchmark::State& s) {
  all_reduce(s, 3, net::Model::kFlow, 32);
}
void BM_AllReduce1GiB_16x16_Packet64K(benchmark::State& s) {
  all_reduce(s, 2, net::Model::kPacket);
}
void BM_AllReduce1GiB_16x16_Analytical(benchmark::State& s) {
  all_reduce(s, 2, net::Model::kAnalytical);
}

void BM_AllToAll4GiB_4x4x4_Flow(benchmark::State& s) {
  run_collective(s, 3, 4, config::CollectiveKind::kAllToAll, uint64_t{4} << 30, net::Model::kFlow);
}

BENCHMARK(BM_AllReduce1GiB_16x16_Flow)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduce1GiB_16x16_Analytical)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduce1GiB_16x16x16_Flow)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_AllReduce1GiB_32x32x32_Flow)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_AllReduce1GiB_16x16_Packet64K)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_AllToAll4GiB_4x4x4_Flow)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace podsim::coll
