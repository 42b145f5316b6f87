// Pipeline stages and transfers, overlap dependencies, determinism.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using testing::named;

config::ModelSpec eight_layers() {
  config::ModelSpec m = testing::llama3_8b();
  m.layers = 8;
  return m;
}

config::ServingSpec pipelined(uint32_t micro_batches) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  sh.pipeline_axis = std::string("p");  // (a literal trips GCC 12 -Wrestrict)
  config::ServingSpec s = testing::decode(eight_layers(), 8, 511, sh);
  s.scenario.micro_batches = micro_batches;
  return s;
}

TEST(Pipeline, StagesHoldTheirLayersAndHandMicroBatchesOn) {
  const Program p = lower(pipelined(2), testing::mesh({{"x", 2}, {"p", 4}}));
  ASSERT_EQ(p.stages.size(), 4u);
  EXPECT_EQ(p.pipeline_axis, "p");
  for (uint32_t st = 0; st < 4; ++st) {
    const StageProgram& s = p.stages[st];
    for (const Instruction& ins : s.instructions) {
      if (ins.layer >= 0) {
        EXPECT_GE(ins.layer, static_cast<int32_t>(2 * st)) << ins.name;
        EXPECT_LT(ins.layer, static_cast<int32_t>(2 * st + 2)) << ins.name;
      }
    }
    EXPECT_EQ(named(s, "embed").size(), st == 0 ? 2u : 0u);
    EXPECT_EQ(named(s, "lm_head").size(), st == 3 ? 2u : 0u);
    const auto sends = named(s, "stage.send");
    ASSERT_EQ(sends.size(), st == 3 ? 0u : 2u);
    for (uint32_t mb = 0; mb < sends.size(); ++mb) {
      const auto& t = std::get<StageTransfer>(sends[mb]->body);
      EXPECT_EQ(t.direction, 1);
      EXPECT_EQ(t.bytes, 4u * 4096 * 2);  // 8 / 2 sequences x d x bf16
      EXPECT_EQ(sends[mb]->micro_batch, mb);
      EXPECT_EQ(sends[mb]->op_class, OpClass::kStageTransfer);
    }
  }
  // The first instruction of each micro-batch on a later stage receives from
  // the previous stage's transfer of the same micro-batch; nothing else does.
  for (uint32_t st = 1; st < 4; ++st) {
    const StageProgram& s = p.stages[st];
    const StageProgram& prev = p.stages[st - 1];
    std::vector<bool> seen(2, false);
    for (const Instruction& ins : s.instructions) {
      if (!seen[ins.micro_batch]) {
        seen[ins.micro_batch] = true;
        ASSERT_GE(ins.recv_from, 0) << ins.name;
        const Instruction& sent = prev.instructions.at(static_cast<size_t>(ins.recv_from));
        EXPECT_TRUE(std::holds_alternative<StageTransfer>(sent.body));
        EXPECT_EQ(sent.micro_batch, ins.micro_batch);
        EXPECT_EQ(ins.layer, static_cast<int32_t>(2 * st));
        EXPECT_TRUE(ins.name.ends_with(".attn.norm")) << ins.name;
      } else {
        EXPECT_EQ(ins.recv_from, -1) << ins.name;
      }
    }
  }
  for (const Instruction& ins : p.stages[0].instructions)
    EXPECT_EQ(ins.recv_from, -1);
}

// A stage runs micro-batch by micro-batch, so the next stage starts early.
TEST(Pipeline, StagesRunOneMicroBatchAtATime) {
  const Program p = lower(pipelined(4), testing::mesh({{"x", 2}, {"p", 2}}));
  for (const StageProgram& s : p.stages) {
    for (size_t i = 1; i < s.instructions.size(); ++i)
      EXPECT_LE(s.instructions[i - 1].micro_batch, s.instructions[i].micro_batch);
  }
}

config::ServingSpec two_micro_batches(bool overlap) {
  config::ModelSpec m = testing::llama3_8b();
  m.layers = 2;
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  sh.overlap_collectives = overlap;
  config::ServingSpec s = testing::decode(m, 8, 511, sh);
  s.scenario.micro_batches = 2;
  return s;
}

// Overlap off: every compute instruction waits (directly or through earlier
// compute) for every collective issued before it. Overlap on: a micro-batch's
// compute does not wait for the other micro-batch's collectives.
TEST(Overlap, DisabledMakesComputeWaitForEveryEarlierCollective) {
  const MeshAxes m = testing::mesh({{"x", 2}});
  const Program off = lower(two_micro_batches(false), m);
  const Program on = lower(two_micro_batches(true), m);
  ASSERT_EQ(off.stages[0].instructions.size(), on.stages[0].instructions.size());
  size_t deps_off = 0;
  size_t deps_on = 0;
  for (size_t i = 0; i < on.stages[0].instructions.size(); ++i) {
    deps_off += off.stages[0].instructions[i].deps.size();
    deps_on += on.stages[0].instructions[i].deps.size();
  }
  EXPECT_GT(deps_off, deps_on);

  auto unordered_pairs = [](const StageProgram& s) {
    const auto reach = testing::reachability(s);
    size_t n = 0;
    for (size_t i = 0; i < s.instructions.size(); ++i) {
      if (!testing::is_compute(s.instructions[i]))
        continue;
      for (size_t j = 0; j < i; ++j)
        n += !testing::is_compute(s.instructions[j]) && !reach[i][j];
    }
    return n;
  };
  EXPECT_EQ(unordered_pairs(off.stages[0]), 0u);
  EXPECT_GT(unordered_pairs(on.stages[0]), 0u);
}

// Without a pipeline the micro-batches interleave block by block: micro-batch
// 1's attention is issued before micro-batch 0's residual add, which waits
// for micro-batch 0's all-reduce.
TEST(Overlap, MicroBatchesInterleaveWithoutAPipeline) {
  const Program p = lower(two_micro_batches(true), testing::mesh({{"x", 2}}));
  const StageProgram& s = p.stages[0];
  const auto adds = named(s, "L0.attn.residual");
  const auto qkv = named(s, "L0.attn.qkv");
  ASSERT_EQ(adds.size(), 2u);
  ASSERT_EQ(qkv.size(), 2u);
  EXPECT_EQ(adds[0]->micro_batch, 0u);
  EXPECT_EQ(qkv[1]->micro_batch, 1u);
  EXPECT_LT(qkv[1], adds[0]);
  const auto ar = named(s, "L0.attn.allreduce");
  const uint32_t ar0 = static_cast<uint32_t>(ar[0] - s.instructions.data());
  EXPECT_NE(std::find(adds[0]->deps.begin(), adds[0]->deps.end(), ar0), adds[0]->deps.end());
}

TEST(Determinism, LoweringTwiceGivesTheSameProgram) {
  config::ShardingSpec moe;
  moe.tensor_axes = {"x"};
  moe.data_axes = {"y"};
  moe.expert_axes = {"x", "y"};
  config::ShardingSpec two_d;
  two_d.tensor_axes = {"x", "y"};
  const MeshAxes m = testing::mesh({{"x", 4}, {"y", 2}});
  const config::ServingSpec specs[] = {
      testing::decode(testing::small_moe(), 32, 100, moe),
      testing::prefill(testing::wide_model(), 8, 64, two_d),
  };
  for (const config::ServingSpec& spec : specs) {
    const std::string a = testing::fingerprint(lower(spec, m));
    const std::string b = testing::fingerprint(lower(spec, m));
    EXPECT_EQ(a, b);
    EXPECT_GT(a.size(), 1000u);
  }
  const MeshAxes pm = testing::mesh({{"x", 2}, {"p", 4}});
  EXPECT_EQ(testing::fingerprint(lower(pipelined(2), pm)),
            testing::fingerprint(lower(pipelined(2), pm)));
}

}  // namespace
}  // namespace podsim::workload
