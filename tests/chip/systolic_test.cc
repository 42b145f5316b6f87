// The systolic model: cycles counted by hand for small cases (the schedule in
// systolic.h: load R, stream S, fill and drain R + C - 2, rounds every
// max(S, R) cycles, HBM fetch F per round), utilisation near 1 for large
// aligned products, and agreement with the roofline where both should agree.
#include "chip/systolic.h"

#include <gtest/gtest.h>

#include <cmath>

#include "chip/roofline.h"
#include "chip_fixture.h"

namespace podsim::chip {
namespace {

MxuPass pass(uint64_t m, uint64_t k, uint64_t n) {
  MxuPass p;
  p.m = m;
  p.k = k;
  p.n = n;
  p.hbm_bytes = 2 * (m * k + k * n + m * n);  // bf16 in, weights, out
  return p;
}

TEST(Systolic, OneTileOnOneArray) {
  // 128 x 128 x 128 bf16 on one 128 x 128 array, 128 bytes of HBM per cycle.
  const SystolicModel model(testing::one_array(128, 128, 128), {});
  const SystolicPassCycles c = model.pass_cycles(pass(128, 128, 128));
  EXPECT_EQ(c.tiles, 1u);
  EXPECT_EQ(c.rounds, 1u);
  EXPECT_EQ(c.stream_cycles, 128u);
  // Load 128 + stream 128 + fill and drain 127 + 127.
  EXPECT_EQ(c.compute_cycles, 510u);
  // 3 x 32 KiB = 98,304 bytes at 128 per cycle arrive before the weights load.
  EXPECT_EQ(c.fetch_cycles, 768u);
  EXPECT_EQ(c.cycles, 768u + 510u);
  EXPECT_EQ(c.hbm_busy_cycles, 768u);
  EXPECT_DOUBLE_EQ(c.useful_macs, 128.0 * 128 * 128);
  EXPECT_DOUBLE_EQ(c.capacity_macs, 128.0 * 128 * 1278);
}

TEST(Systolic, VectorTimesMatrix) {
  // 1 x 128 x 128: the weights take 128 cycles to load for 1 row of work.
  const SystolicModel model(testing::one_array(128, 128, 128), {});
  const SystolicPassCycles c = model.pass_cycles(pass(1, 128, 128));
  EXPECT_EQ(c.stream_cycles, 1u);
  EXPECT_EQ(c.compute_cycles, 128u + 1 + 254);
  EXPECT_EQ(c.fetch_cycles, 260u);  // (256 + 32768 + 256) / 128 = 260
  EXPECT_EQ(c.cycles, 260u + 383);
}

TEST(Systolic, MisalignedShapePadsTilesAndWaitsForHbm) {
  // 100 x 200 x 300: k -> 2 tiles of 128 rows, n -> 3 tiles of 128 columns.
  const SystolicModel model(testing::one_array(128, 128, 128), {});
  const SystolicPassCycles c = model.pass_cycles(pass(100, 200, 300));
  EXPECT_EQ(c.tiles, 6u);
  EXPECT_EQ(c.rounds, 6u);
  EXPECT_EQ(c.stream_cycles, 100u);
  // 100 rows cannot hide a 128-cycle weight load: rounds every 128 cycles.
  EXPECT_EQ(c.compute_cycles, 128u + 5 * 128 + 100 + 254);  // 1122
  // 220,000 bytes over 6 rounds at 128 B/cycle: ceil(286.46) = 287 per round,
  // more than a round's 128 cycles of compute: HBM-bound.
  EXPECT_EQ(c.fetch_cycles, 287u);
  EXPECT_EQ(c.cycles, 287u + 128 + 5 * 287 + 100 + 254);  // 2204
  EXPECT_EQ(c.hbm_busy_cycles, 1719u);                    // ceil(220000 / 128)
}

TEST(Systolic, FewTilesSplitTheRowsOverTheArrays) {
  // v5e: one 128 x 128 tile and 4 arrays: each streams 250 of the 1000 rows.
  const SystolicModel model(testing::v5e(), {});
  MxuPass p = pass(1000, 128, 128);
  p.hbm_bytes = 0;  // operands already in VMEM
  const SystolicPassCycles c = model.pass_cycles(p);
  EXPECT_EQ(c.split, 4u);
  EXPECT_EQ(c.rounds, 1u);
  EXPECT_EQ(c.stream_cycles, 250u);
  EXPECT_EQ(c.compute_cycles, 128u + 250 + 254);
  EXPECT_EQ(c.cycles, c.compute_cycles);
}

TEST(Systolic, Int8StreamsTwoRowsPerCycle) {
  // An array whose int8 rate is twice its bf16 rate.
  const SystolicModel model(testing::one_array(128, 128, 1'000'000, 2.0), {});
  MxuPass p = pass(256, 128, 128);
  p.rate = Rate::kInt8;
  const SystolicPassCycles c = model.pass_cycles(p);
  EXPECT_EQ(c.rows_per_cycle, 2u);
  EXPECT_EQ(c.stream_cycles, 128u);
  // The int8 tile is 128 x 128 bytes, loaded at the default 2 x 128 bytes per
  // cycle: 64 cycles; + 128 streamed + 254 fill and drain.
  EXPECT_EQ(c.compute_cycles, 64u + 128 + 254);
  EXPECT_EQ(c.fetch_cycles, 1u);  // 163,840 bytes at 1e6 per cycle
}

TEST(Systolic, LargeAlignedProductFillsTheArrays) {
  const SystolicModel model(testing::v5e(), {});
  const SystolicCycles c = model.cycles(Matmul{1, 8192, 8192, 8192});
  // 64 x 64 tiles over 4 arrays = 1024 rounds of 8192 rows each.
  EXPECT_EQ(c.compute_cycles, 128u + 1023 * 8192 + 8192 + 254);
  EXPECT_GT(c.utilisation, 0.999);
  EXPECT_LT(c.utilisation, 1.0);
  EXPECT_EQ(c.stall_cycles, c.cycles - c.compute_cycles);
  EXPECT_GT(c.hbm_idle_cycles(), 0u);  // HBM waits for the arrays
}

TEST(Systolic, DecodeProductStallsOnHbm) {
  // 8 x 8192 x 8192 bf16 on v5e: 546 bytes per cycle; 134,479,872 bytes over
  // 1024 rounds = ceil(240.5) = 241 cycles per round, against 128 of compute.
  const SystolicModel model(testing::v5e(), {});
  const SystolicCycles c = model.cycles(Matmul{1, 8, 8192, 8192});
  EXPECT_EQ(c.compute_cycles, 128u + 1023 * 128 + 8 + 254);
  EXPECT_EQ(c.cycles, 241u + 128 + 1023 * 241 + 8 + 254);  // 247,174
  EXPECT_GT(c.stall_cycles, 0u);
  const OpTiming t = model.time(Matmul{1, 8, 8192, 8192});
  EXPECT_EQ(t.cycles, c.cycles);
  EXPECT_EQ(t.bound, OpTiming::Bound::kMemory);
  // Within 1% of the bytes over the HBM bandwidth (164.2 us).
  EXPECT_NEAR(t.time.to_s() / (134'479'872.0 / 819e9), 1.0, 0.01);
}

TEST(Systolic, AgreesWithTheRooflineOnLargeComputeBoundWork) {
  const RooflineModel roofline(testing::v5e(), {});
  const SystolicModel systolic(testing::v5e(), {});
  Attention prefill;
  prefill.q_len = prefill.kv_len = 8192;
  prefill.heads = 32;
  prefill.kv_heads = 8;
  prefill.head_dim = 128;
  for (const Op& op : {Op{Matmul{1, 8192, 8192, 8192}}, Op{Matmul{1, 4096, 4096, 4096}},
                       Op{Matmul{8, 2048, 4096, 1024}}, Op{prefill}}) {
    const OpTiming r = roofline.time(op);
    const OpTiming s = systolic.time(op);
    ASSERT_EQ(r.bound, OpTiming::Bound::kCompute);
    EXPECT_NEAR(s.time.to_s() / r.time.to_s(), 1.0, 0.05) << op.index();
    EXPECT_GE(s.time, r.time);  // the cycle model only adds losses
  }
}

TEST(Systolic, VectorOpsTimedAsTheRooflineTimesThem) {
  const RooflineModel roofline(testing::v5e(), {});
  const SystolicModel systolic(testing::v5e(), {});
  for (const Op& op : {Op{Elementwise{1 << 20, 8, 2 << 20, 2 << 20}},
                       Op{Norm{NormKind::kRms, 64, 8192, DType::kBf16}}, Op{Copy{1 << 20}}}) {
    EXPECT_EQ(systolic.time(op).time, roofline.time(op).time);
    EXPECT_EQ(systolic.time(op).cycles, 0u);
  }
}

}  // namespace
}  // namespace podsim::chip
