// Workload loader throughput: parse + validate + convert, and the diagnostics
// path, in operations per second; and the price of loading one serving step.
// Loading happens once per run; these guard against super-linear behaviour on
// long workloads (validation is linear in the operations; each diagnostic
// locates its field in the text).
#include <benchmark/benchmark.h>

#include <string>

#include "config/topology_loader.h"
#include "config/workload_loader.h"

namespace {

// state.range(0) all-reduces over both axes of the default pod, each after
// the one before, with `bytes` each (1 MiB is valid; 1000 breaks every one).
std::string chained_workload(int64_t operations, uint64_t bytes) {
  std::string text =
      "name: \"bench\"\n"
      "mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" } }\n";
  for (int64_t i = 0; i < operations; ++i) {
    text += "operations { name: \"op" + std::to_string(i) + "\"";
    if (i > 0)
      text += " after: [\"op" + std::to_string(i - 1) + "\"]";
    text += " collective { kind: ALL_REDUCE bytes: " + std::to_string(bytes) +
            " axes: [\"x\", \"y\"] } }\n";
  }
  return text;
}

void BM_ValidWorkload(benchmark::State& state) {
  const podsim::config::PodSpec pod = podsim::config::default_topology();
  const std::string text = chained_workload(state.range(0), 1 << 20);
  for (auto _ : state) {
    benchmark::DoNotOptimize(podsim::config::parse_workload_text(text, "bench", pod));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ValidWorkload)->RangeMultiplier(8)->Range(8, 4096);

// Every operation has a bad size: one diagnostic each, located in the text.
void BM_EveryOperationBad(benchmark::State& state) {
  const podsim::config::PodSpec pod = podsim::config::default_topology();
  const std::string text = chained_workload(state.range(0), 1000);
  for (auto _ : state) {
    try {
      podsim::config::parse_workload_text(text, "bench", pod);
    } catch (const podsim::config::InputError& e) {
      benchmark::DoNotOptimize(e.diagnostics().size());
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EveryOperationBad)->RangeMultiplier(8)->Range(8, 4096);

// A serving step (the embedded default, LLaMA-3-70B decode on the default
// pod): parse, the model, sharding and shape rules, conversion. Its cost does
// not grow with the model; this is the fixed price of a run's input.
void BM_DefaultServingWorkload(benchmark::State& state) {
  const podsim::config::PodSpec pod = podsim::config::default_topology();
  for (auto _ : state) {
    benchmark::DoNotOptimize(podsim::config::default_workload(pod));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DefaultServingWorkload);

}  // namespace
