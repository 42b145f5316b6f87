// Loader throughput: parse + validate + convert, in input bytes per second.
// Loading happens once per run, so this guards against pathological (super-
// linear) behaviour on large inputs rather than chasing microseconds.
#include <benchmark/benchmark.h>

#include <string>

#include "config/topology_loader.h"

namespace {

// The embedded v5e 16x16 pod (about 3 KB of text, mostly comments).
void BM_DefaultTopology(benchmark::State& state) {
  const std::string text = podsim::config::default_topology_text();
  for (auto _ : state) {
    benchmark::DoNotOptimize(podsim::config::parse_topology_text(text, "bench"));
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_DefaultTopology);

// The default pod with state.range(0) failed links: validation is linear in them.
void BM_FailedLinks(benchmark::State& state) {
  std::string text = podsim::config::default_topology_text();
  for (int64_t i = 0; i < state.range(0); ++i) {
    text += "failed_links { coords: [" + std::to_string(i % 16) + ", " +
            std::to_string(i / 16 % 16) + "] dim: " + std::to_string(i / 256 % 2) +
            " direction: 1 }\n";
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(podsim::config::parse_topology_text(text, "bench"));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_FailedLinks)->RangeMultiplier(8)->Range(8, 4096);

}  // namespace
