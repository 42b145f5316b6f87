// Pod construction and routing throughput.
//   BM_BuildPod: the largest v5p pod (16x20x28 = 8960 chips), chips per second.
//   BM_Route / BM_Hops: dimension-ordered routes on a 16x16x16 torus, routes per second.
//   BM_ShortestRoute: the BFS fallback on the same torus, routes per second.
//   BM_TwistedRoute: twisted-aware DOR on the k x 2k x 2k v5p 8x16x16 slice
//     (x wrap shifted 8 along y and z), routes per second.
//   BM_DisjointRoutes: multipath routes on the 16x16x16 torus, pairs per second.
#include <benchmark/benchmark.h>

#include <random>
#include <utility>
#include <vector>

#include "topo/multipath.h"
#include "topo/pod.h"
#include "topo/routing.h"

namespace podsim::topo {
namespace {

config::PodSpec torus_spec(const std::vector<uint32_t>& sizes) {
  config::PodSpec spec;
  spec.name = "bench";
  spec.source_file = "<benchmark>";
  for (const uint32_t size : sizes) {
    config::DimensionSpec d;
    d.size = size;
    d.wraparound = size >= 3;
    d.link_bandwidth = sim::Bandwidth::from_gbps(100);
    d.hop_latency = sim::Time::ns(1000);
    spec.torus.dims.push_back(d);
  }
  return spec;
}

std::vector<std::pair<ChipId, ChipId>> random_pairs(const Pod& pod, size_t count) {
  std::mt19937 rng(42);
  std::uniform_int_distribution<ChipId> chip(0, pod.chip_count() - 1);
  std::vector<std::pair<ChipId, ChipId>> pairs(count);
  for (auto& p : pairs)
    p = {chip(rng), chip(rng)};
  return pairs;
}

void BM_BuildPod(benchmark::State& state) {
  const config::PodSpec spec = torus_spec({16, 20, 28});
  for (auto _ : state) {
    Pod pod(spec);
    benchmark::DoNotOptimize(pod.links().data());
  }
  state.SetItemsProcessed(state.iterations() * 16 * 20 * 28);
}
BENCHMARK(BM_BuildPod)->Unit(benchmark::kMillisecond);

// route_into() over random pairs of `pod`, one route per iteration.
void route_pairs(benchmark::State& state, const Pod& pod) {
  const auto pairs = random_pairs(pod, 1 << 14);
  std::vector<LinkId> path;
  size_t i = 0;
  for (auto _ : state) {
    const auto& [src, dst] = pairs[i++ % pairs.size()];
    path.clear();
    route_into(pod, src, dst, path);
    benchmark::DoNotOptimize(path.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Route(benchmark::State& state) {
  route_pairs(state, Pod(torus_spec({16, 16, 16})));
}
BENCHMARK(BM_Route);

void BM_Hops(benchmark::State& state) {
  const Pod pod(torus_spec({16, 16, 16}));
  const auto pairs = random_pairs(pod, 1 << 14);
  size_t i = 0;
  for (auto _ : state) {
    const auto& [src, dst] = pairs[i++ % pairs.size()];
    benchmark::DoNotOptimize(hops(pod, src, dst));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Hops);

void BM_ShortestRoute(benchmark::State& state) {
  const Pod pod(torus_spec({16, 16, 16}));
  const auto pairs = random_pairs(pod, 1 << 10);
  size_t i = 0;
  for (auto _ : state) {
    const auto& [src, dst] = pairs[i++ % pairs.size()];
    benchmark::DoNotOptimize(shortest_route(pod, src, dst));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ShortestRoute)->Unit(benchmark::kMicrosecond);

void BM_TwistedRoute(benchmark::State& state) {
  config::PodSpec spec = torus_spec({8, 16, 16});
  spec.torus.twists = {{0, 1, 8}, {0, 2, 8}};
  route_pairs(state, Pod(spec));
}
BENCHMARK(BM_TwistedRoute);

void BM_DisjointRoutes(benchmark::State& state) {
  const Pod pod(torus_spec({16, 16, 16}));
  const auto pairs = random_pairs(pod, 1 << 14);
  size_t i = 0;
  for (auto _ : state) {
    const auto& [src, dst] = pairs[i++ % pairs.size()];
    benchmark::DoNotOptimize(disjoint_routes(pod, src, dst));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DisjointRoutes);

}  // namespace
}  // namespace podsim::topo
