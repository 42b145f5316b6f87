// The table model: exact rows, log-log interpolation worked out by hand, and
// the roofline fallback reported once per kind. Tables are built in C++ (the
// loader has its own test).
#include "chip/table_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "chip_fixture.h"

namespace podsim::chip {
namespace {

using config::OpTableEntry;
using config::OpTableKind;
using Source = OpTiming::Source;

OpTableEntry row(OpTableKind kind, TableDims dims, int64_t time_ns, DType dtype = DType::kBf16,
                 DType second = DType::kBf16) {
  OpTableEntry e;
  e.kind = kind;
  e.dims = dims;
  e.dtype = dtype;
  e.second_dtype = second;
  e.time = sim::Time::ns(time_ns);
  return e;
}

// Matmuls of 8, 32 and 128 tokens through 8192 x 8192 bf16 weights.
config::OpTableSpec matmul_table() {
  config::OpTableSpec t;
  t.entries = {row(OpTableKind::kMatmul, {1, 8, 8192, 8192}, 100'000),
               row(OpTableKind::kMatmul, {1, 32, 8192, 8192}, 120'000),
               row(OpTableKind::kMatmul, {1, 128, 8192, 8192}, 200'000)};
  return t;
}

TEST(TableModel, ExactRowsAreUsedAsMeasured) {
  Efficiency eff;
  eff.mxu = 0.5;
  eff.op_overhead = sim::Time::us(3);  // not added to measured times
  const TableModel model(testing::v5e(), eff, matmul_table());
  const OpTiming t = model.time(Matmul{1, 32, 8192, 8192});
  EXPECT_EQ(t.source, Source::kTableExact);
  EXPECT_TRUE(t.from_table());
  EXPECT_EQ(t.time, sim::Time::us(120));
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * 32 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(t.achieved_flops_per_s, t.flops / 120e-6);
  // Compute time and bound are the roofline's estimates (with its efficiency).
  const OpTiming estimate = RooflineModel(testing::v5e(), eff).time(Matmul{1, 32, 8192, 8192});
  EXPECT_EQ(t.compute_time, estimate.compute_time);
  EXPECT_EQ(t.memory_time, estimate.memory_time);
  EXPECT_EQ(t.bound, estimate.bound);
  EXPECT_FALSE(t.first_fallback);
}

TEST(TableModel, InterpolatesLogLogBetweenNeighbours) {
  const TableModel model(testing::v5e(), {}, matmul_table());
  // m = 16 is halfway between 8 and 32 in log size: 100 us x sqrt(1.2).
  const OpTiming a = model.time(Matmul{1, 16, 8192, 8192});
  EXPECT_EQ(a.source, Source::kTableInterpolated);
  EXPECT_NEAR(a.time.to_us(), 100 * std::sqrt(1.2), 1e-6);
  // m = 64, halfway between 32 and 128: sqrt(120 x 200) us.
  EXPECT_NEAR(model.time(Matmul{1, 64, 8192, 8192}).time.to_us(), std::sqrt(120.0 * 200), 1e-6);
  // m = 12 lies log(12/8) / log(4) of the way from 8 to 32.
  const double f = std::log(1.5) / std::log(4.0);
  EXPECT_NEAR(model.time(Matmul{1, 12, 8192, 8192}).time.to_us(), 100 * std::pow(1.2, f), 1e-6);
}

TEST(TableModel, TightestBracketWins) {
  config::OpTableSpec t = matmul_table();
  // A curve along n through m = 16: 6144 -> 80 us, 12288 -> 160 us.
  t.entries.push_back(row(OpTableKind::kMatmul, {1, 16, 8192, 6144}, 80'000));
  t.entries.push_back(row(OpTableKind::kMatmul, {1, 16, 8192, 12288}, 160'000));
  const TableModel model(testing::v5e(), {}, t);
  // Along n the bracket spans 2x (along m, 4x): time proportional to size
  // there, 80 us x 8192 / 6144.
  EXPECT_NEAR(model.time(Matmul{1, 16, 8192, 8192}).time.to_us(), 80.0 * 8192 / 6144, 1e-6);
}

TEST(TableModel, FallsBackOutsideTheTableOncePerKind) {
  const TableModel model(testing::v5e(), {}, matmul_table());
  const RooflineModel roofline(testing::v5e(), {});
  const Op beyond = Matmul{1, 256, 8192, 8192};  // above the largest row
  const OpTiming first = model.time(beyond);
  EXPECT_EQ(first.source, Source::kTableFallback);
  EXPECT_FALSE(first.from_table());
  EXPECT_TRUE(first.first_fallback);
  EXPECT_EQ(first.time, roofline.time(beyond).time);
  // Below the smallest row, two dimensions off, another dtype: fallbacks,
  // no longer the first of their kind.
  for (const Op& op : {Op{Matmul{1, 4, 8192, 8192}}, Op{Matmul{1, 16, 4096, 8192}},
                       Op{Matmul{1, 16, 8192, 8192, DType::kBf16, DType::kInt8}}}) {
    const OpTiming t = model.time(op);
    EXPECT_EQ(t.source, Source::kTableFallback);
    EXPECT_FALSE(t.first_fallback);
  }
  EXPECT_EQ(model.fallbacks(), std::vector<OpKind>{OpKind::kMatmul});
  // A kind the table has no rows for at all.
  EXPECT_TRUE(model.time(Copy{4096}).first_fallback);
  EXPECT_EQ(model.fallbacks(), (std::vector<OpKind>{OpKind::kMatmul, OpKind::kCopy}));
}

TEST(TableModel, DtypesArePartOfTheKey) {
  config::OpTableSpec t;
  t.entries = {row(OpTableKind::kMatmul, {1, 8, 8192, 8192}, 90'000, DType::kBf16, DType::kInt8)};
  const TableModel model(testing::v5e(), {}, t);
  EXPECT_EQ(model.time(Matmul{1, 8, 8192, 8192, DType::kBf16, DType::kInt8}).time,
            sim::Time::us(90));
  EXPECT_EQ(model.time(Matmul{1, 8, 8192, 8192}).source, Source::kTableFallback);
}

TEST(TableModel, DecodeAttentionAlongTheKvLength) {
  config::OpTableSpec t;
  t.entries = {
      row(OpTableKind::kAttentionDecode, {8, 1, 1024, 32, 8, 128, 1}, 50'000),
      row(OpTableKind::kAttentionDecode, {8, 1, 4096, 32, 8, 128, 1}, 200'000),
  };
  const TableModel model(testing::v5e(), {}, t);
  Attention a;
  a.phase = AttentionPhase::kDecode;
  a.batch = 8;
  a.q_len = 1;
  a.kv_len = 2048;
  a.heads = 32;
  a.kv_heads = 8;
  a.head_dim = 128;
  // Time proportional to KV bytes along this curve: 100 us at 2048.
  EXPECT_NEAR(model.time(a).time.to_us(), 100, 1e-6);
  a.phase = AttentionPhase::kPrefill;  // another kind: not in the table
  EXPECT_EQ(model.time(a).source, Source::kTableFallback);
}

TEST(TableModel, NonSizeDimensionsMustMatch) {
  config::OpTableSpec t;
  t.entries = {row(OpTableKind::kElementwise, {1000, 4}, 1'000),
               row(OpTableKind::kElementwise, {4000, 4}, 2'000)};
  const TableModel model(testing::v5e(), {}, t);
  // bytes 2000 (1000 in + 1000 out) with 4 FLOPs per element: on the curve.
  EXPECT_NEAR(model.time(Elementwise{500, 4, 1000, 1000}).time.to_us(), std::sqrt(2.0), 1e-6);
  // 8 FLOPs per element is another curve: not interpolated.
  EXPECT_EQ(model.time(Elementwise{500, 8, 1000, 1000}).source, Source::kTableFallback);
}

TEST(TableModel, FallbackFlagIsSetOnceAcrossThreads) {
  const TableModel model(testing::v5e(), {}, matmul_table());
  std::vector<int> firsts(4, 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < firsts.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 100; ++k)
        firsts[i] += model.time(Copy{64}).first_fallback ? 1 : 0;
    });
  }
  for (std::thread& th : threads)
    th.join();
  EXPECT_EQ(firsts[0] + firsts[1] + firsts[2] + firsts[3], 1);
}

}  // namespace
}  // namespace podsim::chip
