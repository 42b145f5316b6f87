// Epilogue fusion (engine/fusion.h): which elementwise instructions run
// inside their matmul, and conservation: a fused pair does the same FLOPs,
// moves exactly the intermediate's write and read less over HBM, and takes
// no longer than the two apart; the models that do not play fusion fuse
// nothing.
#include "engine/fusion.h"

#include <gtest/gtest.h>

#include "chip/compute_model.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "specs.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/model_math.h"

namespace podsim::engine {
namespace {

workload::Instruction op(std::string name, chip::Op body, std::vector<uint32_t> deps = {}) {
  workload::Instruction i;
  i.name = std::move(name);
  i.op_class = workload::OpClass::kFfn;
  i.body = body;
  i.deps = std::move(deps);
  return i;
}

workload::Instruction reduce(std::vector<uint32_t> deps) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kAllReduce;
  c.bytes = 1 << 20;
  c.axes = {"x"};
  workload::Instruction i;
  i.name = "allreduce";
  i.op_class = workload::OpClass::kCollective;
  i.body = c;
  i.deps = std::move(deps);
  return i;
}

// The matmul's output (64 x 8192 bf16) and a gated activation over it.
constexpr chip::Matmul kUp{1, 64, 4096, 8192};
constexpr uint64_t kOut = 64 * 8192 * 2;
chip::Elementwise gate(uint64_t extra_in = 0) {
  return chip::Elementwise{64 * 4096, 8, kOut + extra_in, kOut / 2};
}

std::unique_ptr<chip::ComputeModel> model(chip::ComputeModelKind kind) {
  return chip::make_compute_model(kind, podsim::testing::v5e_torus({{"x", 4, true}}).chip, {});
}

TEST(Fusion, AnElementwiseOpRunsInsideTheMatmulThatFeedsIt) {
  const auto tc = model(chip::ComputeModelKind::kTensorCore);
  // 0 residual, 1 up (after 0), 2 gate (reads 1 and the residual 0), 3 down.
  const std::vector<workload::Instruction> prog = {
      op("residual", chip::Copy{kOut}), op("up", kUp, {0}), op("gate", gate(kOut), {1, 0}),
      op("down", chip::Matmul{1, 64, 4096, 4096}, {2})};
  const StageFusion f = plan_fusion(prog, *tc);
  EXPECT_EQ(f.fused, 1u);
  EXPECT_EQ(f.fused_into[2], 1);
  ASSERT_TRUE(f.epilogue[1]);
  EXPECT_EQ(f.epilogue[1]->read_bytes, kOut);       // the residual
  EXPECT_EQ(f.epilogue[1]->write_bytes, kOut / 2);  // the gate's output, not the matmul's
  EXPECT_DOUBLE_EQ(f.epilogue[1]->vector_flops, 64.0 * 4096 * 8);

  const std::vector<chip::OpTiming> fused = stage_timings(prog, *tc, f);
  const chip::OpTiming up = tc->time(std::get<chip::Op>(prog[1].body));
  const chip::OpTiming g = tc->time(std::get<chip::Op>(prog[2].body));
  EXPECT_EQ(fused[2].time, sim::Time::zero());
  EXPECT_EQ(fused[2].flops, 0.0);
  // Conservation: the pair's FLOPs, and its bytes less the intermediate's
  // write and read.
  EXPECT_DOUBLE_EQ(fused[1].flops, up.flops + g.flops);
  EXPECT_EQ(fused[1].bytes, up.bytes + g.bytes - 2 * kOut);
  EXPECT_EQ(fused[1].units.total(), fused[1].time);
  // One kernel instead of two: no longer than both apart, here shorter.
  EXPECT_LT(fused[1].time, up.time + g.time);
  // Unfused ops keep their own times.
  EXPECT_EQ(fused[3].time, tc->time(std::get<chip::Op>(prog[3].body)).time);
}

TEST(Fusion, OnlyWhatAFusedKernelCouldRunIsFused) {
  const auto tc = model(chip::ComputeModelKind::kTensorCore);
  // The matmul's output also feeds another op: it must reach HBM.
  EXPECT_EQ(
      plan_fusion({op("up", kUp), op("gate", gate(), {0}), op("other", gate(), {0})}, *tc).fused,
      0u);
  // The elementwise op reads less than the matmul's output.
  EXPECT_EQ(
      plan_fusion({op("up", kUp), op("part", chip::Elementwise{64, 1, 128, 128}, {0})}, *tc).fused,
      0u);
  // It also waits on a collective the matmul does not: fusing would start
  // its work before its input exists.
  EXPECT_EQ(plan_fusion({op("up", kUp), reduce({}), op("gate", gate(), {0, 1})}, *tc).fused, 0u);
  // ... unless the matmul waits on it too.
  EXPECT_EQ(plan_fusion({reduce({}), op("up", kUp, {0}), op("gate", gate(), {1, 0})}, *tc).fused,
            1u);
  // Its output is written by the matmul already (the collective matmul's
  // accumulation, fused by the lowering): fusing again would drop the write.
  EXPECT_EQ(
      plan_fusion({op("up", kUp), op("acc", chip::Elementwise{64 * 8192, 1, kOut, 0}, {0})}, *tc)
          .fused,
      0u);
  // Its producer is a collective, not a matmul.
  EXPECT_EQ(plan_fusion({reduce({}), op("add", gate(), {0})}, *tc).fused, 0u);
  // The models that do not play fusion fuse nothing.
  for (const auto kind : {chip::ComputeModelKind::kRoofline, chip::ComputeModelKind::kSystolic}) {
    EXPECT_EQ(plan_fusion({op("up", kUp), op("gate", gate(), {0})}, *model(kind)).fused, 0u);
  }
}

// A whole LLaMA-3-8B decode step: each layer's gated activation runs inside
// its up projection, the step's FLOPs are the unfused program's, and its
// HBM bytes are less by exactly the fused intermediates' writes and reads.
TEST(Fusion, AWholeStepConservesFlopsAndSavesTheIntermediates) {
  config::ServingSpec s;
  s.model = podsim::testing::llama3_8b();
  s.scenario.phase = config::Phase::kDecode;
  s.scenario.batch = 64;
  s.scenario.context_len = 2048;
  s.sharding.tensor_axes = {"x"};
  const config::PodSpec spec = podsim::testing::v5e_torus({{"x", 4, true}});
  const topo::Pod pod(spec);
  const topo::DeviceMesh mesh(pod, {{"x", {0}}});
  workload::MeshAxes axes;
  axes.names = {"x"};
  axes.sizes = {4};
  const workload::Program program = workload::lower(s, axes);
  const auto tc = model(chip::ComputeModelKind::kTensorCore);
  const StepResult r = run_step(pod, mesh, program, *tc, StepOptions{});
  EXPECT_EQ(r.fused_epilogues, s.model.layers);
  const auto& prog = program.stages[0].instructions;
  const StageFusion f = plan_fusion(prog, *tc);
  double flops = 0;
  double bytes = 0;
  double saved = 0;
  for (uint32_t k = 0; k < prog.size(); ++k) {
    if (const auto* o = std::get_if<chip::Op>(&prog[k].body)) {
      const chip::OpTiming t = tc->time(*o);
      flops += t.flops;
      bytes += static_cast<double>(t.bytes);
      if (f.epilogue[k]) {
        saved += 2.0 * static_cast<double>(chip::work(*o).hbm_write_bytes);
      }
    }
  }
  EXPECT_DOUBLE_EQ(r.flops, flops);
  EXPECT_DOUBLE_EQ(r.hbm_bytes, bytes - saved);
  EXPECT_GT(saved, 0.0);
  // The breakdown still adds up, fused instructions taking no time.
  EXPECT_EQ(r.critical.units.total(), r.critical.compute + r.critical.memory);
}

// stage_timings times each distinct (operation, epilogue) once: a program
// that repeats one layer gets, at every instruction, what timing that
// instruction alone gives, on every model (fused matmuls, fused
// elementwise ops and distinct operations between repeats included).
TEST(Fusion, RepeatedLayersGetEachInstructionsOwnTiming) {
  std::vector<workload::Instruction> prog;
  for (uint32_t layer = 0; layer < 3; ++layer) {
    const auto base = static_cast<uint32_t>(prog.size());
    prog.push_back(op("residual", chip::Copy{kOut},
                      base > 0 ? std::vector<uint32_t>{base - 1} : std::vector<uint32_t>{}));
    prog.push_back(op("up", kUp, {base}));
    prog.push_back(op("gate", gate(kOut), {base + 1, base}));
    // One operation that differs from layer to layer.
    prog.push_back(op("down", chip::Matmul{1, 64, 4096, 1024 * (layer + 1)}, {base + 2}));
  }
  // The fused matmul again, with nothing to fuse: its own kernel's time.
  prog.push_back(op("up_alone", kUp, {static_cast<uint32_t>(prog.size() - 1)}));
  for (const auto kind : {chip::ComputeModelKind::kRoofline, chip::ComputeModelKind::kSystolic,
                          chip::ComputeModelKind::kTensorCore}) {
    const auto m = model(kind);
    const StageFusion f = plan_fusion(prog, *m);
    const std::vector<chip::OpTiming> timing = stage_timings(prog, *m, f);
    ASSERT_EQ(timing.size(), prog.size());
    if (kind == chip::ComputeModelKind::kTensorCore) {
      ASSERT_TRUE(f.epilogue[1]);  // "up" is fused, "up_alone" not
      ASSERT_FALSE(f.epilogue.back());
    }
    for (uint32_t k = 0; k < prog.size(); ++k) {
      SCOPED_TRACE(prog[k].name + " " + std::to_string(k));
      const chip::Op& o = std::get<chip::Op>(prog[k].body);
      chip::OpTiming alone;
      if (f.fused_into[k] < 0) {
        alone =
            f.epilogue[k] ? *m->fused_time(std::get<chip::Matmul>(o), *f.epilogue[k]) : m->time(o);
      }
      EXPECT_EQ(timing[k].time, alone.time);
      EXPECT_EQ(timing[k].compute_time, alone.compute_time);
      EXPECT_EQ(timing[k].memory_time, alone.memory_time);
      EXPECT_EQ(timing[k].bytes, alone.bytes);
      EXPECT_EQ(timing[k].flops, alone.flops);
      EXPECT_EQ(timing[k].cycles, alone.cycles);
    }
  }
}

}  // namespace
}  // namespace podsim::engine
