// sharding.collective_matmul ON (workload/collective_matmul.cc): each
// tensor-parallel all-gather feeding a matmul, or reduce-scatter fed by one,
// becomes N chunk matmuls and N - 1 shifts of 1 / N of the array around the
// ring, both ways. Checked against the plain program: the same bytes on the
// wire, the same matmul FLOPs; lines and axes over several dimensions loop
// as the same cycle of shifts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

struct Totals {
  double wire_bytes = 0;  // per chip, ring costs (permute: V)
  double matmul_flops = 0;
  size_t shifts = 0;
  size_t collectives = 0;
};

Totals totals(const Program& p, const MeshAxes& mesh) {
  Totals t;
  t.wire_bytes = testing::wire_bytes_per_chip(p.stages[0], mesh);
  for (const Instruction& ins : p.stages[0].instructions) {
    if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
      ++t.collectives;
      t.shifts += c->kind == config::CollectiveKind::kPermute ? 1 : 0;
    } else if (const auto* op = std::get_if<chip::Op>(&ins.body)) {
      if (const auto* mm = std::get_if<chip::Matmul>(op))
        t.matmul_flops += 2.0 * mm->batch * mm->m * mm->k * mm->n;
    }
  }
  return t;
}

config::ShardingSpec sharding(std::vector<std::string> axes, bool reduce_scatter, bool looped) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  if (reduce_scatter)
    s.tensor_collective = config::TensorCollective::kReduceScatterAllGather;
  s.collective_matmul = looped ? config::CollectiveMatmul::kOn : config::CollectiveMatmul::kOff;
  return s;
}

struct Case {
  const char* name;
  std::vector<std::pair<std::string, uint32_t>> mesh;
  bool reduce_scatter;
  bool parallel_block = false;
};

class CollectiveMatmul : public ::testing::TestWithParam<Case> {};

TEST_P(CollectiveMatmul, SameBytesAndFlopsInChunks) {
  const Case& c = GetParam();
  const MeshAxes mesh = testing::mesh(c.mesh);
  std::vector<std::string> axes;
  for (const auto& [name, size] : c.mesh)
    axes.push_back(name);
  config::ModelSpec m = testing::llama3_70b();
  m.parallel_block = c.parallel_block;
  for (const bool prefill : {false, true}) {
    const auto spec = [&](bool looped) {
      const config::ShardingSpec s = sharding(axes, c.reduce_scatter, looped);
      return prefill ? testing::prefill(m, 16, 256, s) : testing::decode(m, 64, 1024, s);
    };
    const Program whole = lower(spec(false), mesh);
    const Program looped = lower(spec(true), mesh);
    const Totals a = totals(whole, mesh);
    const Totals b = totals(looped, mesh);
    EXPECT_EQ(a.shifts, 0U);
    EXPECT_GT(b.shifts, 0U) << c.name;
    EXPECT_NEAR(b.wire_bytes, a.wire_bytes, 1e-9 * a.wire_bytes) << c.name;
    EXPECT_NEAR(b.matmul_flops, a.matmul_flops, 1e-9 * a.matmul_flops) << c.name;
    EXPECT_FALSE(whole.collective_matmul.on);
    EXPECT_TRUE(looped.collective_matmul.on);
    EXPECT_GT(looped.collective_matmul.looped, 0U);
    EXPECT_EQ(looped.model_flops, whole.model_flops);
    EXPECT_EQ(looped.memory_per_chip.weight_bytes, whole.memory_per_chip.weight_bytes);
    EXPECT_EQ(looped.memory_per_chip.kv_cache_bytes, whole.memory_per_chip.kv_cache_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, CollectiveMatmul,
    ::testing::Values(Case{"1D RS+AG over 8", {{"x", 8}}, true},
                      Case{"2D 4x4", {{"x", 4}, {"y", 4}}, false},
                      Case{"2D 2x8", {{"x", 2}, {"y", 8}}, false},
                      Case{"2D 4x4 parallel block", {{"x", 4}, {"y", 4}}, false, true}),
    [](const auto& p) { return std::to_string(p.index); });

// One looped all-gather over N = 8: N - 1 shifts of V / N (4 one way, 3 the
// other) and N chunk matmuls of 1 / N of the tokens each.
TEST(CollectiveMatmulShape, OneGatherIsNChunksAndNMinusOneShifts) {
  const MeshAxes mesh = testing::mesh({{"x", 8}});
  const config::ModelSpec m = testing::llama3_70b();
  const Program p = lower(testing::prefill(m, 8, 128, sharding({"x"}, true, true)), mesh);
  const auto up = testing::named(p.stages[0], "L3.ffn.gather.shift_up");
  const auto down = testing::named(p.stages[0], "L3.ffn.gather.shift_down");
  ASSERT_EQ(up.size(), 4U);
  ASSERT_EQ(down.size(), 3U);
  const uint64_t v = 8ULL * 128 * m.d_model * 2;  // the gathered rows x d, bf16
  for (const Instruction* ins : up) {
    EXPECT_EQ(testing::collective(*ins).bytes, v / 8);
    EXPECT_EQ(testing::collective(*ins).shift, 1);
  }
  EXPECT_EQ(testing::collective(*down[0]).shift, -1);
  const auto chunks = testing::named(p.stages[0], "L3.ffn.up_gate");
  ASSERT_EQ(chunks.size(), 8U);
  EXPECT_EQ(testing::matmul(*chunks[0]).m, 128U);  // 1024 tokens / 8
  EXPECT_TRUE(testing::named(p.stages[0], "L3.ffn.gather").empty());
}

// Over a line (no wraparound) and over a group of several dimensions the
// loop is the same program as over a ring: XLA's cycle of collective-permutes
// over the axis's chips in mesh order (CollectiveSpec::cyclic), whose closing
// transfers the network routes back across the group. Lowering sees axis
// sizes only (MeshAxes); the network model times the difference
// (tests/study/collective_matmul_test.cc runs it on v5e lines and v4 [y, z]).
TEST(CollectiveMatmulShape, EveryAxisLoopsAsACycleOfShifts) {
  const config::ModelSpec m = testing::llama3_70b();
  const Program two_d = lower(testing::decode(m, 64, 1024, sharding({"x", "y"}, false, true)),
                              testing::mesh({{"x", 4}, {"y", 4}}));
  EXPECT_GT(two_d.collective_matmul.looped, 0U);
  // What stays whole is a matmul's smaller collective, never an axis.
  EXPECT_EQ(two_d.collective_matmul.whole_reasons,
            std::vector<std::string>{
                "the smaller of a matmul's all-gather and reduce-scatter (one loops per matmul)"});
  const auto up = testing::named(two_d.stages[0], "L3.ffn.up.scatter_x.shift_up");
  ASSERT_FALSE(up.empty());
  for (const Instruction* ins : up)
    EXPECT_TRUE(testing::collective(*ins).cyclic);

  // One mesh axis over two torus dimensions (say [y, z] of 4x4x4) is one
  // axis of 16 chips: 8 shifts up, 7 down, of 1 / 16 of the gathered rows
  // each.
  const Program p = lower(testing::prefill(m, 16, 128, sharding({"model"}, true, true)),
                          testing::mesh({{"model", 16}}));
  const auto gather_up = testing::named(p.stages[0], "L3.ffn.gather.shift_up");
  const auto gather_down = testing::named(p.stages[0], "L3.ffn.gather.shift_down");
  ASSERT_EQ(gather_up.size(), 8U);
  ASSERT_EQ(gather_down.size(), 7U);
  const uint64_t v = 16ULL * 128 * m.d_model * 2;  // the gathered rows x d, bf16
  EXPECT_EQ(testing::collective(*gather_up[0]).bytes, v / 16);
  EXPECT_TRUE(testing::collective(*gather_up[0]).cyclic);
  EXPECT_EQ(testing::named(p.stages[0], "L3.ffn.up_gate").size(), 16U);
  EXPECT_TRUE(p.collective_matmul.whole_reasons.empty());
}

// A 2D parallel block loops the collectives between its fused projections:
// one reduce-scatter over X of the input projection's two parts (Q/K/V by
// sequence, the FFN's by column) and one gather over X of the output
// projection's two inputs, every step computing both parts.
TEST(CollectiveMatmulShape, ParallelBlockLoopsBetweenItsFusedProjections) {
  const MeshAxes mesh = testing::mesh({{"x", 4}, {"y", 4}});
  config::ModelSpec m = testing::llama3_70b();
  m.parallel_block = true;
  const Program p = lower(testing::prefill(m, 16, 128, sharding({"x", "y"}, false, true)), mesh);
  for (const std::string& r : p.collective_matmul.whole_reasons)
    EXPECT_EQ(r.find("parallel block"), std::string::npos) << r;
  const auto& code = p.stages[0];
  // The input projection: 2 shifts up and 1 down of both parts' chunks for
  // one destination, 4 steps of two chunk matmuls (one per part).
  const auto in_up = testing::named(code, "L3.block.in.scatter_x.shift_up");
  ASSERT_EQ(in_up.size(), 2U);
  EXPECT_EQ(testing::named(code, "L3.block.in.scatter_x.shift_down").size(), 1U);
  const auto in_chunks = testing::named(code, "L3.block.in");
  ASSERT_EQ(in_chunks.size(), 8U);
  EXPECT_EQ(testing::matmul(*in_chunks[0]).m * 4, testing::matmul(*in_chunks[1]).m)
      << "Q/K/V by sequence, the FFN by column";
  // The output projection: the gather of both branches' outputs.
  EXPECT_EQ(testing::named(code, "L3.block.out.gather_x.shift_up").size(), 2U);
  EXPECT_TRUE(testing::named(code, "L3.attn.qkv.scatter_x").empty());
  EXPECT_TRUE(testing::named(code, "L3.ffn.down.gather_x").empty());
}

}  // namespace
}  // namespace podsim::workload
