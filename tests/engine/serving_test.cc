// Whole serving steps (lowered by src/workload, played by the engine)
// against the serving rules of thumb of [SB] ("How to Scale Your Model",
// chapter "inference") and against what-if questions whose direction is
// known: more HBM bandwidth, more ICI bandwidth, fewer micro-batches.
#include <gtest/gtest.h>

#include "chip/compute_model.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "specs.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/model_math.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

using podsim::testing::llama3_8b;
using podsim::testing::TorusDim;

config::PodSpec v5e_like(const std::vector<TorusDim>& dims, double hbm_gbps = 819,
                         double link_gbps = 50) {
  podsim::testing::PodOptions o;
  o.hbm_gbps = hbm_gbps;
  o.link_gbps = link_gbps;
  return podsim::testing::v5e_torus(dims, o);
}

struct Outcome {
  StepResult step;
  ServingSummary summary;
};

// One axis per torus dimension, named like it; the sharding names the roles.
Outcome simulate(const config::PodSpec& pod_spec, const config::ServingSpec& serving,
                 chip::ComputeModelKind kind = chip::ComputeModelKind::kRoofline) {
  const topo::Pod pod(pod_spec);
  std::vector<topo::MeshAxisSpec> axes;
  workload::MeshAxes sizes;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    axes.push_back({pod_spec.torus.dims[d].name, {d}});
    sizes.names.push_back(pod_spec.torus.dims[d].name);
    sizes.sizes.push_back(pod.dim_size(d));
  }
  const topo::DeviceMesh mesh(pod, axes);
  const workload::Program program = workload::lower(serving, sizes);
  const auto compute = chip::make_compute_model(kind, pod_spec.chip, chip::Efficiency{});
  Outcome o;
  o.step = run_step(pod, mesh, program, *compute, StepOptions{});
  o.summary = summarize_serving(o.step, program, pod_spec, serving.scenario);
  return o;
}

config::ServingSpec decode_8b(uint32_t batch, uint32_t context) {
  config::ServingSpec s;
  s.model = llama3_8b();
  s.scenario.phase = config::Phase::kDecode;
  s.scenario.batch = batch;
  s.scenario.context_len = context;
  s.sharding.tensor_axes = {"x"};
  return s;
}

TEST(Serving, MemoryBoundDecodeMatchesTheRuleOfThumb) {
  // Four chips of tensor parallelism: little communication, HBM-bound.
  const config::PodSpec pod = v5e_like({{"x", 4, true}});
  const config::ServingSpec s = decode_8b(16, 4096);
  const Outcome o = simulate(pod, s);
  // [SB]: T = B x KV_bytes_per_seq / HBM_total + max(2 B params / FLOPs_total,
  //                                               param_bytes / HBM_total).
  const double chips = 4;
  const double hbm_total = chips * 819e9;
  const double params = static_cast<double>(workload::parameter_count(s.model));
  const double kv_per_seq = 2.0 * 8 * 128 * 32 * 2 * 4096;
  const double t = 16 * kv_per_seq / hbm_total +
                   std::max(2 * 16 * params / (chips * 1.97e14), 2 * params / hbm_total);
  EXPECT_NEAR(o.summary.step_time_us * 1e-6, t, 0.10 * t)
      << "podsim " << o.summary.step_time_us << " us, rule of thumb " << t * 1e6 << " us";
  EXPECT_GT(o.summary.memory_us, 0.8 * o.summary.step_time_us);
  EXPECT_TRUE(o.summary.fits);
}

TEST(Serving, DoublingHbmBandwidthShortensAMemoryBoundStep) {
  const config::ServingSpec s = decode_8b(16, 4096);
  const Outcome base = simulate(v5e_like({{"x", 4, true}}), s);
  const Outcome fast = simulate(v5e_like({{"x", 4, true}}, 2 * 819), s);
  EXPECT_LT(fast.summary.memory_us, 0.55 * base.summary.memory_us);
  EXPECT_LT(fast.summary.step_time_us, 0.7 * base.summary.step_time_us);
}

TEST(Serving, DoublingIciBandwidthShortensExposedCommunication) {
  // Prefill moves real activation volumes through the all-reduces.
  config::ServingSpec s = decode_8b(8, 0);
  s.scenario.phase = config::Phase::kPrefill;
  s.scenario.prompt_len = 2048;
  const Outcome base = simulate(v5e_like({{"x", 8, true}}), s);
  const Outcome fast = simulate(v5e_like({{"x", 8, true}}, 819, 100), s);
  ASSERT_GT(base.summary.collective_exposed_us, 0);
  EXPECT_LT(fast.summary.collective_exposed_us, 0.6 * base.summary.collective_exposed_us);
  EXPECT_NEAR(fast.summary.compute_us + fast.summary.memory_us,
              base.summary.compute_us + base.summary.memory_us, 1e-6 * base.summary.step_time_us);
}

TEST(Serving, PipelineWithFewerMicroBatchesThanStagesShowsItsBubble) {
  config::ServingSpec s = decode_8b(32, 1024);
  s.sharding.tensor_axes = {"x"};
  s.sharding.pipeline_axis = std::string(1, 'y');  // not = "y": GCC 12 -Wrestrict false positive
  const config::PodSpec pod = v5e_like({{"x", 4, true}, {"y", 4, true}});
  s.scenario.micro_batches = 1;
  const Outcome one = simulate(pod, s);
  s.scenario.micro_batches = 8;
  const Outcome eight = simulate(pod, s);
  // With one micro-batch each stage waits for all before it: 3/4 idle at best.
  EXPECT_GT(one.summary.idle_us, 0.5 * one.summary.step_time_us);
  EXPECT_LT(eight.summary.idle_us / eight.summary.step_time_us,
            one.summary.idle_us / one.summary.step_time_us);
}

TEST(Serving, ModelTooLargeForTheSliceDoesNotFit) {
  config::ServingSpec s = decode_8b(8, 1024);
  s.sharding.tensor_axes = {"x"};
  const Outcome o = simulate(v5e_like({{"x", 1, false}}), s);  // 16 GB of weights on one 16 GB chip
  EXPECT_FALSE(o.summary.fits);
  EXPECT_GT(o.summary.hbm_used_bytes, o.summary.hbm_capacity_bytes);
}

TEST(Serving, BreakdownAddsUpToTheStepTime) {
  config::ServingSpec s = decode_8b(64, 2048);
  const Outcome o = simulate(v5e_like({{"x", 8, true}, {"y", 2, false}}), s);
  const ChipBreakdown& b = o.step.critical;
  EXPECT_EQ(b.compute + b.memory + b.collective_exposed + b.idle, o.step.step_time);
  sim::Time layers;
  for (const auto& g : o.step.by_layer) {
    layers += g.compute + g.memory + g.collective_exposed;
  }
  EXPECT_EQ(layers + b.idle, o.step.step_time);
  EXPECT_EQ(o.step.simulated_chips, 8U);  // y is a replica axis: folded
  // Every simulated chip's own breakdown adds up to its own end.
  ASSERT_EQ(o.step.chip_breakdowns.size(), o.step.chips.size());
  for (const ChipBreakdown& c : o.step.chip_breakdowns) {
    EXPECT_EQ(c.compute + c.memory + c.collective_exposed + c.idle, c.end);
    EXPECT_LE(c.end, o.step.step_time);
  }
}

// The unit breakdown (matrix units, vector unit, issue, DMA wait, overhead)
// splits compute + memory exactly, for the chip, every op class and layer,
// with every compute model; tensorcore alone issues.
TEST(Serving, UnitsAddUpToComputeAndMemoryTime) {
  config::ServingSpec s = decode_8b(64, 2048);
  for (const auto kind : {chip::ComputeModelKind::kRoofline, chip::ComputeModelKind::kSystolic,
                          chip::ComputeModelKind::kTensorCore}) {
    SCOPED_TRACE(std::string(chip::to_string(kind)));
    const Outcome o = simulate(v5e_like({{"x", 8, true}, {"y", 2, false}}), s, kind);
    const ChipBreakdown& b = o.step.critical;
    EXPECT_EQ(b.units.total(), b.compute + b.memory);
    EXPECT_GT(b.units.mxu, sim::Time::zero());
    EXPECT_GT(b.units.dma_wait, sim::Time::zero());
    EXPECT_EQ(b.units.issue > sim::Time::zero(), kind == chip::ComputeModelKind::kTensorCore);
    chip::UnitTimes classes;
    for (const auto& g : o.step.by_op_class) {
      EXPECT_EQ(g.units.total(), g.compute + g.memory) << g.key;
      classes += g.units;
    }
    EXPECT_EQ(classes, b.units);
    for (const auto& g : o.step.by_layer) {
      EXPECT_EQ(g.units.total(), g.compute + g.memory) << g.key;
    }
    for (const ChipBreakdown& c : o.step.chip_breakdowns) {
      EXPECT_EQ(c.units.total(), c.compute + c.memory);
    }
  }
}

// sharding.pad_heads: 28 heads over 4 KV heads do not split over 8 chips and
// are padded to 32 (8 per KV head instead of 7). The step costs what a
// 32-head model's does (time and memory), while MFU counts the 28-head
// model's FLOPs only.
TEST(Serving, PaddedHeadsCostTimeButNotModelFlops) {
  const config::PodSpec pod = v5e_like({{"x", 8, true}});
  config::ServingSpec padded = decode_8b(32, 2048);
  padded.model.heads = 28;
  padded.model.kv_heads = 4;
  padded.sharding.pad_heads = true;
  config::ServingSpec wide = padded;
  wide.model.heads = 32;
  wide.sharding.pad_heads = false;
  const Outcome p = simulate(pod, padded);
  const Outcome w = simulate(pod, wide);
  EXPECT_EQ(p.summary.step_time_us, w.summary.step_time_us);
  EXPECT_EQ(p.summary.memory.weight_bytes, w.summary.memory.weight_bytes);
  EXPECT_EQ(p.summary.memory.kv_cache_bytes, w.summary.memory.kv_cache_bytes);
  // MFU's numerator is the real model's FLOPs.
  const double real_flops = workload::model_flops(padded);
  const double capacity = p.summary.step_time_us * 1e-6 * 8 * pod.chip.peak_bf16_flops;
  EXPECT_NEAR(p.summary.mfu * capacity, real_flops, 1e-9 * real_flops);
  EXPECT_LT(real_flops, workload::model_flops(wide));
  EXPECT_NEAR(p.summary.mfu / w.summary.mfu, real_flops / workload::model_flops(wide), 1e-12);
}

}  // namespace
}  // namespace podsim::engine
