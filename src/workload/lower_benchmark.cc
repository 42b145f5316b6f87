// Lowering speed: instructions emitted per second for large programs (the
// lowering runs once per simulated step, so it must stay far below the
// simulation's own cost).
#include <benchmark/benchmark.h>

#include "workload/program.h"

namespace podsim::workload {
namespace {

config::ModelSpec llama3_70b() {
  config::ModelSpec m;
  m.name = "llama3-70b";
  m.layers = 80;
  m.d_model = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_dim = 28672;
  m.vocab = 128256;
  return m;
}

void run(benchmark::State& state, const config::ServingSpec& spec, const MeshAxes& mesh) {
  uint64_t instructions = 0;
  for (auto _ : state) {
    const Program p = lower(spec, mesh);
    for (const StageProgram& s : p.stages)
      instructions += s.instructions.size();
    benchmark::DoNotOptimize(p.model_flops);
  }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
}

// 2D tensor parallelism on 16 x 16 chips, decode, 8 micro-batches.
void BM_Lower70bDecode2D(benchmark::State& state) {
  config::ServingSpec spec;
  spec.model = llama3_70b();
  spec.scenario.batch = 256;
  spec.scenario.context_len = 4095;
  spec.scenario.micro_batches = static_cast<uint32_t>(state.range(0));
  spec.sharding.tensor_axes = {"x", "y"};
  MeshAxes mesh;
  mesh.names = {"x", "y"};
  mesh.sizes = {16, 8};
  run(state, spec, mesh);
}
BENCHMARK(BM_Lower70bDecode2D)->Arg(1)->Arg(8);

// 1D tensor parallelism with an 8-stage pipeline and 16 micro-batches.
void BM_Lower70bPipelined(benchmark::State& state) {
  config::ServingSpec spec;
  spec.model = llama3_70b();
  spec.scenario.batch = 128;
  spec.scenario.context_len = 2047;
  spec.scenario.micro_batches = 16;
  spec.sharding.tensor_axes = {"x"};
  spec.sharding.pipeline_axis = std::string("p");
  MeshAxes mesh;
  mesh.names = {"x", "p"};
  mesh.sizes = {8, 8};
  run(state, spec, mesh);
}
BENCHMARK(BM_Lower70bPipelined);

}  // namespace
}  // namespace podsim::workload
