// The roofline model against the published TPU v5e figures: 1.97e14 bf16
// FLOP/s, 3.94e14 int8 OP/s, 819 GB/s of HBM, 4 MXUs of 128 x 128.
#include "chip/roofline.h"

#include <gtest/gtest.h>

#include <cmath>

#include "chip_fixture.h"

namespace podsim::chip {
namespace {

constexpr double kPeak = 1.97e14;  // bf16 FLOP/s
constexpr double kHbm = 819e9;     // B/s

// Seconds -> picoseconds, for comparing with sim::Time.
double ps(double seconds) {
  return seconds * 1e12;
}

class Roofline : public ::testing::Test {
 protected:
  RooflineModel model_{testing::v5e(), {}};
};

TEST_F(Roofline, LargeBf16ProductRunsAtPeak) {
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  const OpTiming t = model_.time(Matmul{1, 8192, 8192, 8192});
  EXPECT_EQ(t.bound, OpTiming::Bound::kCompute);
  EXPECT_NEAR(t.time.count_ps(), ps(flops / kPeak), 2);  // 5.58 ms
  EXPECT_NEAR(t.achieved_flops_per_s / kPeak, 1.0, 1e-9);
  EXPECT_NEAR(t.mxu_utilisation, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(t.flops, flops);
  EXPECT_EQ(t.bytes, 3u * 8192 * 8192 * 2);
  EXPECT_EQ(t.source, OpTiming::Source::kModel);
  EXPECT_EQ(t.cycles, 0u);
}

TEST_F(Roofline, MxuEfficiencyScalesTheAchievedRate) {
  Efficiency eff;
  eff.mxu = 0.8;
  const RooflineModel derated(testing::v5e(), eff);
  const OpTiming t = derated.time(Matmul{1, 8192, 8192, 8192});
  EXPECT_NEAR(t.achieved_flops_per_s / (0.8 * kPeak), 1.0, 1e-9);
  EXPECT_NEAR(t.mxu_utilisation, 0.8, 1e-9);
}

TEST_F(Roofline, DecodeProductIsBoundByLoadingTheWeights) {
  // 8 tokens x (8192 x 8192 bf16 weights): the weights' 128 MiB dominate.
  const OpTiming t = model_.time(Matmul{1, 8, 8192, 8192});
  EXPECT_EQ(t.bound, OpTiming::Bound::kMemory);
  // ceil(134,479,872 B x 1e12 / 819e9 B/s) ps, bytes = 2 x 128 KiB
  // activations in and out + 128 MiB of weights.
  EXPECT_EQ(t.time, sim::Time::ps(164'200'088));
  const double weights_only = ps(8192.0 * 8192 * 2 / kHbm);
  EXPECT_NEAR(t.time.count_ps() / weights_only, 1.0, 0.002);
  // The batch of 8 uses 8/128 of each array: compute is that of 128 rows.
  EXPECT_NEAR(t.compute_time.count_ps(), ps(2.0 * 128 * 8192 * 8192 / kPeak), 2);  // 87.2 us
  EXPECT_NEAR(t.mxu_utilisation, 2.0 * 8 * 8192 * 8192 / kPeak / t.time.to_s(), 1e-9);
}

TEST_F(Roofline, Int8WeightsHalveTheMemoryTime) {
  Matmul bf16{1, 8, 8192, 8192};
  Matmul int8 = bf16;
  int8.weight = DType::kInt8;
  const OpTiming a = model_.time(bf16);
  const OpTiming b = model_.time(int8);
  const double activations = ps(2 * 8 * 8192 * 2 / kHbm);  // in and out, unchanged
  EXPECT_NEAR((b.memory_time.count_ps() - activations) / (a.memory_time.count_ps() - activations),
              0.5, 1e-6);
  // Weight-only quantisation keeps the bf16 MXU path and its 8/128 padding,
  // so the product is now just compute-bound: loading 128 x 128 weight
  // tiles into the arrays (87.2 us) outlasts reading the int8 weights from
  // HBM (82.1 us + activations).
  EXPECT_EQ(b.compute_time, a.compute_time);
  EXPECT_EQ(b.bound, OpTiming::Bound::kCompute);
}

TEST_F(Roofline, CriticalBatchIsAbout240ForBf16) {
  // Compute time of a b x 8192 x 8192 product against the time to load its
  // weights (8192 x 8192 bf16) from HBM: equal at b = peak / HBM B/s = 240.5.
  const double weight_load_ps = ps(8192.0 * 8192 * 2 / kHbm);
  EXPECT_NEAR(kPeak / kHbm, 240.5, 0.1);
  EXPECT_LT(model_.time(Matmul{1, 240, 8192, 8192}).compute_time.count_ps(), weight_load_ps);
  EXPECT_GT(model_.time(Matmul{1, 241, 8192, 8192}).compute_time.count_ps(), weight_load_ps);
  // Counting the activations' bytes too, the whole op turns compute-bound at
  // 240.5 / (1 - 2 x 240.5 / 8192) = 255.5.
  EXPECT_EQ(model_.time(Matmul{1, 248, 8192, 8192}).bound, OpTiming::Bound::kMemory);
  EXPECT_EQ(model_.time(Matmul{1, 264, 8192, 8192}).bound, OpTiming::Bound::kCompute);
}

TEST_F(Roofline, PaddingToTheArrays) {
  MxuPass p;
  p.m = 300;
  p.k = 100;
  p.n = 200;
  EXPECT_DOUBLE_EQ(model_.padding(p), (100.0 / 128) * (200.0 / 256));
  p.m = 8;
  p.k = 8192;
  p.n = 8192;
  EXPECT_DOUBLE_EQ(model_.padding(p), 8.0 / 128);
  // int8 streams two rows per cycle on v5e, and its one-byte tile loads in
  // half the cycles of a bf16 one (64, at the default one bf16 row of bytes
  // per cycle), so it too needs 2 x 64 = 128 rows per tile.
  p.m = 200;
  p.rate = Rate::kInt8;
  EXPECT_DOUBLE_EQ(model_.padding(p), 1.0);
  p.m = 100;
  EXPECT_DOUBLE_EQ(model_.padding(p), 100.0 / 128);
}

TEST_F(Roofline, Int8AndMissingFp8Peaks) {
  Matmul mm{1, 8192, 8192, 8192, DType::kInt8, DType::kInt8};
  EXPECT_NEAR(model_.time(mm).compute_time.count_ps(), ps(2.0 * 8192 * 8192 * 8192 / 3.94e14), 2);
  // v5e has no fp8 peak: fp8 x fp8 runs at the bf16 rate.
  mm.act = mm.weight = DType::kFp8;
  EXPECT_NEAR(model_.time(mm).compute_time.count_ps(), ps(2.0 * 8192 * 8192 * 8192 / kPeak), 2);
}

TEST_F(Roofline, CausalPrefillAttentionIsComputeBound) {
  Attention a;
  a.q_len = a.kv_len = 8192;
  a.heads = 32;
  a.kv_heads = 8;
  a.head_dim = 128;
  const double pairs = 8192.0 * 8193 / 2;
  const OpTiming t = model_.time(a);
  EXPECT_EQ(t.bound, OpTiming::Bound::kCompute);
  // Both passes fill the arrays (m = 8192 x 4, k and n multiples of 128).
  EXPECT_NEAR(t.time.count_ps(), ps(4.0 * 32 * pairs * 128 / kPeak), 2);  // 2.79 ms
}

TEST_F(Roofline, DecodeAttentionReadsTheKvCache) {
  Attention a;
  a.phase = AttentionPhase::kDecode;
  a.batch = 8;
  a.q_len = 1;
  a.kv_len = 4096;
  a.heads = 32;
  a.kv_heads = 8;
  a.head_dim = 128;
  const double kv_bytes = 2.0 * 8 * 4096 * 8 * 128 * 2;  // 128 MiB
  const double q_bytes = 8.0 * 32 * 128 * 2;
  const OpTiming t = model_.time(a);
  EXPECT_EQ(t.bound, OpTiming::Bound::kMemory);
  EXPECT_NEAR(t.time.count_ps(), std::ceil(ps((kv_bytes + 2 * q_bytes) / kHbm)), 1);
  a.kv = DType::kInt8;
  const OpTiming int8 = model_.time(a);
  EXPECT_NEAR(int8.memory_time.count_ps(), std::ceil(ps((kv_bytes / 2 + 2 * q_bytes) / kHbm)), 1);
  // With g = 4 query rows per KV head, each 128-row tile of K or V is used
  // by 4 rows: 4/128 of the MXU, bf16 path (int8 KV is weight-only
  // quantisation). Two passes of 2 x 64 x 4 x 128 x 4096 FLOPs at 1.97e14 x
  // 4/128 take 87.2 us, more than the 82.1 us of int8 KV reads.
  EXPECT_EQ(int8.bound, OpTiming::Bound::kCompute);
  EXPECT_NEAR(int8.compute_time.count_ps(), ps(2 * 2.0 * 64 * 4 * 128 * 4096 / (kPeak * 4 / 128)),
              2);
}

TEST_F(Roofline, VectorWorkAtAPeakOverSixteen) {
  // 4 FLOPs per element: memory-bound.
  const OpTiming cheap = model_.time(Elementwise{1'000'000, 4, 2'000'000, 2'000'000});
  EXPECT_EQ(cheap.bound, OpTiming::Bound::kMemory);
  EXPECT_NEAR(cheap.time.count_ps(), ps(4e6 / kHbm), 1);
  EXPECT_DOUBLE_EQ(cheap.mxu_utilisation, 0);
  // 100 FLOPs per element over 4 bytes: vector-bound at 1.97e14 / 16.
  const OpTiming dear = model_.time(Elementwise{1'000'000, 100, 2'000'000, 2'000'000});
  EXPECT_EQ(dear.bound, OpTiming::Bound::kCompute);
  EXPECT_NEAR(dear.time.count_ps(), ps(1e8 / (kPeak / 16)), 1);  // 8.1 us

  Efficiency eff;
  eff.vector = 0.5;
  const RooflineModel slow(testing::v5e(), eff);
  EXPECT_NEAR(slow.time(Elementwise{1'000'000, 100, 2'000'000, 2'000'000}).time.count_ps(),
              ps(1e8 / (kPeak / 32)), 1);
}

TEST_F(Roofline, HbmEfficiencyAndOverhead) {
  Efficiency eff;
  eff.hbm = 0.5;
  eff.op_overhead = sim::Time::us(5);
  const RooflineModel m(testing::v5e(), eff);
  // 1 KiB each way at 409.5 GB/s: 5 ns, well under the 5 us overhead.
  const OpTiming tiny = m.time(Copy{1024});
  EXPECT_EQ(tiny.bound, OpTiming::Bound::kOverhead);
  EXPECT_EQ(tiny.memory_time, sim::Time::ps(5'002));  // ceil(2048e12 / 409.5e9)
  EXPECT_EQ(tiny.time, sim::Time::ps(5'002) + sim::Time::us(5));
  const OpTiming big = m.time(Copy{1ull << 30});
  EXPECT_EQ(big.bound, OpTiming::Bound::kMemory);
  EXPECT_NEAR(big.time.count_ps(), ps(2.0 * (1ull << 30) / 409.5e9) + 5e6, 1);
}

}  // namespace
}  // namespace podsim::chip
