// --compute tensorcore (chip/tensorcore/): the pipeline's closed form by
// hand, the roofline as an upper bound on every op's achieved rates, and the
// micro-architecture knobs moving what they should and nothing else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chip/roofline.h"
#include "chip/tensorcore/tensorcore_model.h"
#include "chip/unit_timeline.h"
#include "chip_fixture.h"

namespace podsim::chip::tensorcore {
namespace {

TEST(TensorCorePipeline, ClosedFormByHand) {
  CoreRates r;
  r.clock_hz = 1e9;
  r.dma_bytes_per_cycle = 100;
  r.dma_latency_cycles = 50;
  r.step_issue_cycles = 10;
  KernelSteps k;
  k.steps = 4;
  k.in_bytes = 1000;  // 50 + 10 cycles
  k.out_bytes = 500;  // 50 + 5
  k.mxu_cycles = 30;
  k.vector_cycles = 20;
  k.fill_cycles = 7;
  const PipelineCycles c = play(k, r);
  // in 60, then 3 intervals of max(30 + 10, 50 + 15) = 65, the last step's
  // 40, fill 7, out 55.
  EXPECT_DOUBLE_EQ(c.total, 60 + 3 * 65 + 40 + 7 + 55);
  EXPECT_DOUBLE_EQ(c.compute, 4 * 40 + 7);
  EXPECT_DOUBLE_EQ(c.dma_wait, c.total - c.compute);
  EXPECT_DOUBLE_EQ(c.mxu, 4 * 30 + 7);
  EXPECT_DOUBLE_EQ(c.vector, 4 * 20);
  EXPECT_DOUBLE_EQ(c.issue, 4 * 10);
  EXPECT_DOUBLE_EQ(c.dma_busy, 4 * 15);
  // Along the critical path each step's busy time is the matrix units'
  // (the longer unit) and the issue; the fill is the matrix units'.
  EXPECT_DOUBLE_EQ(c.mxu_path, 4 * 30 + 7);
  EXPECT_DOUBLE_EQ(c.vector_path, 0);
  EXPECT_DOUBLE_EQ(c.mxu_path + c.vector_path + c.issue, c.compute);
  // The vector unit longer: its steps are on the path, the fill still the
  // matrix units'.
  k.vector_cycles = 45;
  const PipelineCycles v = play(k, r);
  EXPECT_DOUBLE_EQ(v.vector_path, 4 * 45);
  EXPECT_DOUBLE_EQ(v.mxu_path, 7);
  EXPECT_DOUBLE_EQ(v.mxu_path + v.vector_path + v.issue, v.compute);
}

std::vector<Op> ops() {
  std::vector<Op> out;
  for (uint64_t m : {1, 8, 100, 1024, 8192})
    for (uint64_t kn : {128, 1000, 8192})
      for (DType w : {DType::kBf16, DType::kInt8}) {
        out.push_back(Matmul{1, m, kn, kn, DType::kBf16, w});
        out.push_back(Matmul{4, m, kn, 3 * kn, DType::kBf16, w});
      }
  for (uint64_t kv : {128, 4096})
    for (uint64_t batch : {1, 32}) {
      Attention a;
      a.phase = AttentionPhase::kDecode;
      a.batch = batch;
      a.q_len = 1;
      a.kv_len = kv;
      a.heads = 64;
      a.kv_heads = 8;
      a.head_dim = 128;
      a.causal = false;
      out.push_back(a);
      a.phase = AttentionPhase::kPrefill;
      a.q_len = kv;
      a.causal = true;
      out.push_back(a);
    }
  out.push_back(Norm{NormKind::kRms, 4096, 8192, DType::kBf16});
  out.push_back(Elementwise{1 << 24, 1, 2u << 24, 1u << 25});
  out.push_back(Elementwise{1 << 20, 64, 2u << 20, 2u << 20});
  out.push_back(Copy{1 << 26});
  out.push_back(Reduction{1 << 20, 128, DType::kBf16});
  out.push_back(Embedding{512, 8192, 128256, DType::kBf16});
  return out;
}

config::ChipSpec two_cores() {
  config::ChipSpec c = testing::v5e();
  c.mxu_count = 8;
  c.peak_bf16_flops *= 2;
  c.peak_int8_ops *= 2;
  c.hbm_bandwidth = sim::Bandwidth::bytes_per_s(2 * c.hbm_bandwidth.bytes_per_s());
  c.vmem_bytes *= 2;
  c.tensor_core.cores = 2;
  return c;
}

// What the roofline takes as given (operands in VMEM, transfers hidden,
// vector work at the unit's full rate beside the matrix units), the
// TensorCore model plays out: it is never faster, and moves at least the
// op's bytes.
TEST(TensorCoreModel, RooflineIsAnUpperBoundOnEveryOp) {
  for (const config::ChipSpec& chip : {testing::v5e(), two_cores()}) {
    SCOPED_TRACE(std::to_string(chip.tensor_core.cores) + " cores");
    const RooflineModel roofline(chip, {});
    const TensorCoreModel model(chip, {});
    const std::vector<Op> all = ops();
    for (size_t i = 0; i < all.size(); ++i) {
      SCOPED_TRACE(i);
      const Op& op = all[i];
      const OpTiming r = roofline.time(op);
      const OpTiming t = model.time(op);
      EXPECT_GE(t.time, r.time);
      EXPECT_LE(t.achieved_flops_per_s, r.achieved_flops_per_s * (1 + 1e-9));
      const Tiling tiling = model.tiling(op);
      EXPECT_GE(tiling.dma_bytes * chip.tensor_core.cores,
                static_cast<double>(work(op).hbm_bytes()) * (1 - 1e-9));
      EXPECT_LE(tiling.vmem_bytes, chip.vmem_bytes / chip.tensor_core.cores);
      EXPECT_NEAR(tiling.cycles.total, tiling.cycles.compute + tiling.cycles.dma_wait, 1e-6);
    }
  }
}

// Faster or larger hardware is never slower, op by op: more VMEM, DMA
// bandwidth or vector lanes, less DMA latency, granule or issue cost.
TEST(TensorCoreModel, BetterHardwareIsNeverSlower) {
  const auto better_chips = [] {
    std::vector<std::pair<std::string, config::ChipSpec>> out;
    config::ChipSpec c = testing::v5e();
    c.vmem_bytes = 256ull << 20;
    out.emplace_back("VMEM x2", c);
    c = testing::v5e();
    c.tensor_core.dma_bandwidth = sim::Bandwidth::bytes_per_s(2 * c.hbm_bandwidth.bytes_per_s());
    out.emplace_back("DMA bandwidth x2", c);
    c = testing::v5e();
    c.tensor_core.dma_latency = sim::Time::from_ns_rounded(100);
    out.emplace_back("DMA latency 100 ns", c);
    c = testing::v5e();
    c.tensor_core.dma_granule_bytes = 512;
    out.emplace_back("granule 512 B", c);
    c = testing::v5e();
    c.tensor_core.vector_lanes = 256;
    c.tensor_core.transcendentals_per_cycle = 512;
    out.emplace_back("vector x2", c);
    c = testing::v5e();
    c.tensor_core.step_issue_cycles = 10;
    out.emplace_back("issue 10 cycles", c);
    return out;
  }();
  for (const uint64_t mib : {8, 32, 128}) {
    config::ChipSpec base = testing::v5e();
    base.vmem_bytes = mib << 20;
    const TensorCoreModel a(base, {});
    for (auto [what, chip] : better_chips) {
      if (what != "VMEM x2")
        chip.vmem_bytes = base.vmem_bytes;
      else
        chip.vmem_bytes = 2 * base.vmem_bytes;
      SCOPED_TRACE(what + " at " + std::to_string(mib) + " MiB");
      const TensorCoreModel b(chip, {});
      const std::vector<Op> all = ops();
      for (size_t i = 0; i < all.size(); ++i)
        EXPECT_LE(b.time(all[i]).time, a.time(all[i]).time) << "op " << i;
    }
  }
}

const Matmul kPrefillUp{1, 16384, 8192, 2 * 28672};  // LLaMA-3-70B's up and gate, 16k tokens

TEST(TensorCoreModel, MoreVmemIsNeverSlowerAndHelpsALargeMatmul) {
  double previous = 0;
  double at_16 = 0;
  double at_128 = 0;
  for (const uint64_t mib : {4, 8, 16, 32, 64, 128, 256}) {
    config::ChipSpec chip = testing::v5e();
    chip.vmem_bytes = mib << 20;
    const TensorCoreModel model(chip, {});
    const double t = model.time(kPrefillUp).time.to_s();
    if (previous > 0) {
      EXPECT_LE(t, previous) << mib << " MiB";
    }
    previous = t;
    const Tiling tiling = model.tiling(kPrefillUp);
    EXPECT_LE(tiling.vmem_bytes, chip.vmem_bytes);
    if (mib == 4)
      at_16 = t;
    if (mib == 128)
      at_128 = t;
  }
  // Small blocks re-read the operands: at 4 MiB the matmul waits on HBM.
  EXPECT_LT(at_128, at_16);
}

// The Pallas matmul guide's traffic: x re-read per column block, y per row
// block, the output written once, in whole DMA granules.
TEST(TensorCoreModel, MatmulTrafficIsTheGuidesFormula) {
  const TensorCoreModel model(testing::v5e(), {});
  const Matmul mm{1, 4096, 4096, 4096};
  const Tiling t = model.tiling(mm);
  ASSERT_GT(t.bm, 0U);
  const double x = 4096.0 * 4096 * 2 * (t.bk == 4096 ? 1.0 : 4096.0 / t.bn);
  const double y = 4096.0 * 4096 * 2 * (t.bk == 4096 && t.bn == 4096 ? 1.0 : 4096.0 / t.bm);
  const double o = 4096.0 * 4096 * 2;
  EXPECT_NEAR(t.dma_bytes, x + y + o, 1e-9 * (x + y + o));
}

TEST(TensorCoreModel, AWiderVectorUnitSpeedsOnlyVectorBoundWork) {
  config::ChipSpec wide = testing::v5e();
  wide.tensor_core.vector_lanes = 256;
  const TensorCoreModel a(testing::v5e(), {});
  const TensorCoreModel b(wide, {});
  const Op heavy = Elementwise{1 << 22, 256, 2u << 22, 2u << 22};  // 256 FLOPs per element
  EXPECT_LT(b.time(heavy).time.to_s(), 0.75 * a.time(heavy).time.to_s());
  const Op copy = Copy{1 << 26};
  EXPECT_EQ(b.time(copy).time, a.time(copy).time);
}

TEST(TensorCoreModel, DmaLatencyAndGranuleCostSmallTransfers) {
  config::ChipSpec slow = testing::v5e();
  slow.tensor_core.dma_latency = sim::Time::from_ns_rounded(2000);
  config::ChipSpec coarse = testing::v5e();
  coarse.tensor_core.dma_granule_bytes = 1 << 20;
  const TensorCoreModel base(testing::v5e(), {});
  const Op small = Norm{NormKind::kRms, 8, 8192, DType::kBf16};
  EXPECT_GT(TensorCoreModel(slow, {}).time(small).time, base.time(small).time);
  EXPECT_GT(TensorCoreModel(coarse, {}).time(small).time, base.time(small).time);
}

// Decode attention: eight query rows against a long cache. With 256-wide
// arrays the cache as the stationary operand loads a 256 x 256 tile for
// every eight rows streamed; the queries stationary stream the cache
// through one tile instead. Prefill keeps the cache stationary.
TEST(TensorCoreModel, AttentionTakesTheFastestMapping) {
  config::ChipSpec wide = testing::v5e();
  wide.mxu_rows = wide.mxu_columns = 256;
  wide.mxu_count = 1;
  const TensorCoreModel model(wide, {});
  Attention decode;
  decode.phase = AttentionPhase::kDecode;
  decode.batch = 8;
  decode.q_len = 1;
  decode.kv_len = 8192;
  decode.heads = 64;
  decode.kv_heads = 8;
  decode.head_dim = 128;
  decode.causal = false;
  const Tiling d = model.tiling(decode);
  EXPECT_NE(d.mapping, AttentionMapping::kCacheStationary);
  EXPECT_NE(d.mapping, AttentionMapping::kNone);
  Attention prefill = decode;
  prefill.phase = AttentionPhase::kPrefill;
  prefill.q_len = 8192;
  prefill.causal = true;
  EXPECT_EQ(model.tiling(prefill).mapping, AttentionMapping::kCacheStationary);
  EXPECT_EQ(model.tiling(Matmul{1, 8, 128, 128}).mapping, AttentionMapping::kNone);
  EXPECT_EQ(model.attention_mapping(prefill), "cache-stationary");
  // The other models have one fixed answer.
  EXPECT_EQ(RooflineModel(wide, {}).attention_mapping(prefill), "");
}

// sharding.attention_mapping forces a mapping: each forced one is played as
// asked, none is faster than the free choice, and the free choice is the
// fastest of them.
TEST(TensorCoreModel, AForcedAttentionMappingIsPlayedAsAsked) {
  const TensorCoreModel model(testing::v5e(), {});
  Attention a;
  a.phase = AttentionPhase::kDecode;
  a.batch = 16;
  a.q_len = 1;
  a.kv_len = 4096;
  a.heads = 32;
  a.kv_heads = 8;
  a.head_dim = 128;
  a.causal = false;
  for (const AttentionPhase phase : {AttentionPhase::kDecode, AttentionPhase::kPrefill}) {
    a.phase = phase;
    a.q_len = phase == AttentionPhase::kDecode ? 1 : 1024;
    a.mapping = config::AttentionMapping::kAuto;
    const OpTiming free = model.time(a);
    const AttentionMapping chosen = model.tiling(a).mapping;
    sim::Time fastest = sim::Time::max();
    for (const auto& [forced, played] :
         {std::pair{config::AttentionMapping::kCacheStationary, AttentionMapping::kCacheStationary},
          std::pair{config::AttentionMapping::kQueriesStationary,
                    AttentionMapping::kQueriesStationary},
          std::pair{config::AttentionMapping::kVectorUnit, AttentionMapping::kVectorUnit}}) {
      a.mapping = forced;
      EXPECT_EQ(model.tiling(a).mapping, played);
      EXPECT_EQ(model.attention_mapping(a), to_string(played));
      const OpTiming t = model.time(a);
      EXPECT_GE(t.time, free.time);
      fastest = std::min(fastest, t.time);
      if (played == chosen) {
        EXPECT_EQ(t.time, free.time);
      }
    }
    EXPECT_EQ(fastest, free.time);
  }
}

// A VMEM too small for any block (the CLI refuses under 1 MiB a core) still
// gives every op a time, never none: the smallest tiling, played as it is.
TEST(TensorCoreModel, ATinyVmemStillTimesEveryOp) {
  config::ChipSpec chip = testing::v5e();
  chip.vmem_bytes = 4096;
  const TensorCoreModel model(chip, {});
  const RooflineModel roofline(testing::v5e(), {});
  const std::vector<Op> all = ops();
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_GE(model.time(all[i]).time, roofline.time(all[i]).time) << "op " << i;
}

TEST(TensorCoreModel, NoVmemIsRefused) {
  config::ChipSpec chip = testing::v5e();
  chip.vmem_bytes = 0;
  EXPECT_THROW(TensorCoreModel(chip, {}), std::invalid_argument);
}

// The trace's unit tracks: the pipeline laid out in time. Every slice lies
// in the op's time, a track's slices never overlap, the work drawn is the
// work the closed form counts, the write-back ends the busy time, and a
// long kernel draws its ends one step at a time and the middle as one slice.
TEST(TensorCoreModel, UnitTimelineLaysThePipelineOutInTime) {
  Efficiency eff;
  eff.op_overhead = sim::Time::ns(300);
  const TensorCoreModel model(testing::v5e(), eff);
  for (const Op& op : ops()) {
    SCOPED_TRACE(op.index());
    const OpTiming t = model.time(op);
    const Tiling tiling = model.tiling(op);
    const std::vector<UnitSlice> slices = model.unit_timeline(op);
    const uint64_t n = tiling.steps.steps;
    EXPECT_LE(slices.size(), 4 * (2 * kShownSteps + 1) + 4);
    sim::Time issue;
    sim::Time last_end;
    for (const Unit u : kUnits) {
      sim::Time end;
      for (const UnitSlice& s : slices) {
        if (s.unit != u)
          continue;
        EXPECT_LT(s.start, s.end);
        EXPECT_GE(s.start, end) << to_string(u);  // in time order, never overlapping
        EXPECT_LE(s.end, t.time);
        end = s.end;
        if (u == Unit::kIssue && s.work == UnitWork::kSteps)
          issue += s.end - s.start;
        if (s.work == UnitWork::kOverhead)
          EXPECT_EQ(s.end - s.start, eff.op_overhead);
        else
          last_end = std::max(last_end, s.end);
      }
    }
    EXPECT_EQ(last_end, t.time - eff.op_overhead);
    if (n <= 2 * kShownSteps) {
      // Each step's issue drawn, within a picosecond a step of rounding.
      EXPECT_NEAR(static_cast<double>(issue.count_ps()),
                  static_cast<double>(t.units.issue.count_ps()), static_cast<double>(n) + 1);
    }
  }
}

// The other models' reading: compute and HBM from the op's start, the
// overhead after them.
TEST(TensorCoreModel, OtherModelsDrawComputeAndHbmOverlapped) {
  Efficiency eff;
  eff.op_overhead = sim::Time::ns(300);
  const RooflineModel roofline(testing::v5e(), eff);
  const Op op = Elementwise{1 << 24, 2, 2u << 24, 2u << 24};
  const OpTiming t = roofline.time(op);
  const std::vector<UnitSlice> slices = roofline.unit_timeline(op);
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_EQ(slices[0].unit, Unit::kVector);
  EXPECT_EQ(slices[0].end, t.compute_time);
  EXPECT_EQ(slices[1].unit, Unit::kDma);
  EXPECT_EQ(slices[1].end, t.memory_time);
  EXPECT_EQ(slices[2].work, UnitWork::kOverhead);
  EXPECT_EQ(slices[2].start, t.memory_time);
  EXPECT_EQ(slices[2].end, t.time);
}

}  // namespace
}  // namespace podsim::chip::tensorcore
