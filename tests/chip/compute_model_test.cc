// The ComputeModel interface: the factory, names, bad arguments, and a
// conformance suite every model must pass on the same operations.
#include "chip/compute_model.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "chip/chip_rates.h"
#include "chip_fixture.h"

namespace podsim::chip {
namespace {

std::vector<Op> sample_ops() {
  Attention prefill;
  prefill.batch = 2;
  prefill.q_len = prefill.kv_len = 512;
  prefill.heads = 16;
  prefill.kv_heads = 4;
  prefill.head_dim = 128;
  Attention decode = prefill;
  decode.phase = AttentionPhase::kDecode;
  decode.q_len = 1;
  decode.kv = DType::kInt8;
  return {Matmul{1, 8, 8192, 8192},
          Matmul{1, 4096, 4096, 4096, DType::kInt8, DType::kInt8},
          Matmul{16, 100, 200, 300, DType::kBf16, DType::kInt4, DType::kFp32, true},
          prefill,
          decode,
          Elementwise{1 << 20, 8, 2 << 20, 2 << 20},
          Norm{NormKind::kLayer, 128, 4096, DType::kBf16},
          Reduction{1 << 20, 1, DType::kFp32},
          Embedding{256, 4096, 32000, DType::kBf16},
          Copy{1 << 24}};
}

config::OpTableSpec small_table() {
  config::OpTableSpec t;
  config::OpTableEntry e;
  e.kind = config::OpTableKind::kCopy;
  e.dims = {1 << 24};
  e.time = sim::Time::us(50);
  t.entries.push_back(e);
  return t;
}

class Conformance : public ::testing::TestWithParam<ComputeModelKind> {};

TEST_P(Conformance, EveryModelReportsConsistentTimings) {
  Efficiency eff;
  eff.op_overhead = sim::Time::ns(700);
  const config::OpTableSpec table = small_table();
  const auto model = make_compute_model(GetParam(), testing::v5e(), eff, &table);
  EXPECT_EQ(model->name(), to_string(GetParam()));
  for (const Op& op : sample_ops()) {
    SCOPED_TRACE(op.index());
    const OpWork w = work(op);
    const OpTiming t = model->time(op);
    EXPECT_GT(t.time, sim::Time::zero());
    EXPECT_DOUBLE_EQ(t.flops, w.flops());
    EXPECT_EQ(t.bytes, w.hbm_bytes());
    EXPECT_GE(t.mxu_utilisation, 0.0);
    EXPECT_LE(t.mxu_utilisation, 1.0);
    if (!t.from_table()) {
      // Model times hold the overhead and are at least the longer of
      // compute and memory.
      EXPECT_GE(t.time, std::max(t.compute_time, t.memory_time) + eff.op_overhead);
    }
    // Deterministic: the same op gives the same time.
    EXPECT_EQ(model->time(op).time, t.time);
    // The unit breakdown adds up to the op's time exactly, with the overhead
    // its own part (a measured time's parts are the roofline's, scaled).
    EXPECT_EQ(t.units.total(), t.time);
    if (!t.from_table()) {
      EXPECT_EQ(t.units.overhead, eff.op_overhead);
    }
    if (w.mxu_flops == 0) {
      EXPECT_EQ(t.units.mxu, sim::Time::zero());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, Conformance,
                         ::testing::Values(ComputeModelKind::kRoofline, ComputeModelKind::kSystolic,
                                           ComputeModelKind::kTable, ComputeModelKind::kTensorCore),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(ComputeModel, NamesRoundTrip) {
  for (ComputeModelKind k : {ComputeModelKind::kRoofline, ComputeModelKind::kSystolic,
                             ComputeModelKind::kTable, ComputeModelKind::kTensorCore})
    EXPECT_EQ(parse_compute_model(to_string(k)), k);
  EXPECT_EQ(parse_compute_model("Roofline"), std::nullopt);
  EXPECT_EQ(to_string(OpTiming::Bound::kMemory), "memory");
}

TEST(ComputeModel, RejectsBadArguments) {
  const config::ChipSpec chip = testing::v5e();
  EXPECT_THROW(make_compute_model(ComputeModelKind::kTable, chip, {}, nullptr),
               std::invalid_argument);
  for (double bad : {0.0, -0.5, 1.5}) {
    Efficiency eff;
    eff.hbm = bad;
    EXPECT_THROW(make_compute_model(ComputeModelKind::kRoofline, chip, eff), std::invalid_argument);
  }
  Efficiency negative;
  negative.op_overhead = sim::Time::ns(-1);
  EXPECT_THROW(make_compute_model(ComputeModelKind::kSystolic, chip, negative),
               std::invalid_argument);
  config::ChipSpec no_mxu = chip;
  no_mxu.mxu_rows = 0;
  EXPECT_THROW(make_compute_model(ComputeModelKind::kSystolic, no_mxu, {}), std::invalid_argument);
  config::ChipSpec no_hbm = chip;
  no_hbm.hbm_bandwidth = {};
  EXPECT_THROW(make_compute_model(ComputeModelKind::kRoofline, no_hbm, {}), std::invalid_argument);
}

// The roofline's parts in closed form: a compute-bound matmul is all matrix
// units; a memory-bound elementwise op is its vector time, then waiting on
// HBM for the rest of its bytes.
TEST(ComputeModel, RooflineUnitsInClosedForm) {
  Efficiency eff;
  eff.op_overhead = sim::Time::ns(500);
  const auto roofline = make_compute_model(ComputeModelKind::kRoofline, testing::v5e(), eff);
  const OpTiming mm = roofline->time(Matmul{1, 4096, 4096, 4096});
  ASSERT_EQ(mm.bound, OpTiming::Bound::kCompute);
  EXPECT_EQ(mm.units.mxu, mm.compute_time);
  EXPECT_EQ(mm.units.vector + mm.units.issue + mm.units.dma_wait, sim::Time::zero());
  EXPECT_EQ(mm.units.overhead, eff.op_overhead);
  const OpTiming ew = roofline->time(Elementwise{1 << 24, 2, 2u << 24, 2u << 24});
  ASSERT_EQ(ew.bound, OpTiming::Bound::kMemory);
  EXPECT_GT(ew.units.vector, sim::Time::zero());
  EXPECT_EQ(ew.units.vector, ew.compute_time);
  EXPECT_EQ(ew.units.dma_wait, ew.memory_time - ew.compute_time);
}

TEST(ComputeModel, ScaledUnitsKeepProportionsAndAddUp) {
  UnitTimes u;
  u.mxu = sim::Time::ps(600);
  u.dma_wait = sim::Time::ps(300);
  u.overhead = sim::Time::ps(100);
  const UnitTimes half = scale_units(u, sim::Time::ps(500));
  EXPECT_EQ(half.mxu, sim::Time::ps(300));
  EXPECT_EQ(half.dma_wait, sim::Time::ps(150));
  EXPECT_EQ(half.overhead, sim::Time::ps(50));
  // 1001 / 1000 of each part floors to the same; the picosecond left over
  // goes to the largest part.
  const UnitTimes odd = scale_units(u, sim::Time::ps(1001));
  EXPECT_EQ(odd.total(), sim::Time::ps(1001));
  EXPECT_EQ(odd.mxu, sim::Time::ps(601));
  EXPECT_EQ(scale_units(UnitTimes{}, sim::Time::ps(7)).dma_wait, sim::Time::ps(7));
}

TEST(ComputeModel, ModelsAgreeOnMemoryBoundWork) {
  // A copy and a decode product are bound by HBM in every model.
  const auto roofline = make_compute_model(ComputeModelKind::kRoofline, testing::v5e(), {});
  const auto systolic = make_compute_model(ComputeModelKind::kSystolic, testing::v5e(), {});
  for (const Op& op : {Op{Copy{1 << 26}}, Op{Matmul{1, 8, 8192, 8192}}}) {
    EXPECT_NEAR(systolic->time(op).time.to_s() / roofline->time(op).time.to_s(), 1.0, 0.01);
  }
}

}  // namespace
}  // namespace podsim::chip
