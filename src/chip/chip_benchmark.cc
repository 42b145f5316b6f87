// Cost of timing one operation, per compute model (ns per op; items_per_second
// = ops costed per second of wall time).
//
//  BM_Roofline/BM_Systolic _Matmul: a decode-shaped 8 x 8192 x 8192 bf16
//    product; _Attention: a GQA decode attention (batch 8, 32 heads over 8 KV
//    heads, 4096 cached tokens, head_dim 128).
//  BM_Table_Interpolated: a matmul between two rows of a 64-row table.
// The chip is a TPU v5e (the published figures tests/chip uses).
#include <benchmark/benchmark.h>

#include <memory>

#include "chip/compute_model.h"
#include "chip/roofline.h"
#include "chip/systolic.h"
#include "chip/table_model.h"

namespace podsim::chip {
namespace {

config::ChipSpec v5e() {
  config::ChipSpec c;
  c.name = "TPU v5e";
  c.peak_bf16_flops = 1.97e14;
  c.peak_int8_ops = 3.94e14;
  c.hbm_bytes = 16'000'000'000;
  c.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  c.mxu_count = 4;
  c.mxu_rows = 128;
  c.mxu_columns = 128;
  c.mxu_clock_hz = 1.5e9;
  c.vmem_bytes = 128ull << 20;
  return c;
}

Op decode_matmul() {
  return Matmul{1, 8, 8192, 8192};
}

Op decode_attention() {
  Attention a;
  a.phase = AttentionPhase::kDecode;
  a.batch = 8;
  a.q_len = 1;
  a.kv_len = 4096;
  a.heads = 32;
  a.kv_heads = 8;
  a.head_dim = 128;
  return a;
}

void run(benchmark::State& state, const ComputeModel& model, const Op& op) {
  for (auto _ : state) {
    const OpTiming t = model.time(op);
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Roofline_Matmul(benchmark::State& state) {
  run(state, RooflineModel(v5e(), {}), decode_matmul());
}
void BM_Roofline_Attention(benchmark::State& state) {
  run(state, RooflineModel(v5e(), {}), decode_attention());
}
void BM_Systolic_Matmul(benchmark::State& state) {
  run(state, SystolicModel(v5e(), {}), decode_matmul());
}
void BM_Systolic_Attention(benchmark::State& state) {
  run(state, SystolicModel(v5e(), {}), decode_attention());
}

void BM_Table_Interpolated(benchmark::State& state) {
  config::OpTableSpec table;
  for (uint64_t i = 0; i < 64; ++i) {
    config::OpTableEntry e;
    e.kind = config::OpTableKind::kMatmul;
    e.dims = {1, 16 * (i + 1), 8192, 8192};
    e.time = sim::Time::ns(100'000 + 1000 * static_cast<int64_t>(i));
    table.entries.push_back(e);
  }
  run(state, TableModel(v5e(), {}, table), Matmul{1, 40, 8192, 8192});
}

BENCHMARK(BM_Roofline_Matmul);
BENCHMARK(BM_Roofline_Attention);
BENCHMARK(BM_Systolic_Matmul);
BENCHMARK(BM_Systolic_Attention);
BENCHMARK(BM_Table_Interpolated);

}  // namespace
}  // namespace podsim::chip
