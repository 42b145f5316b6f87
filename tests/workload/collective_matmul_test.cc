// sharding.collective_matmul ON (workload/collective_matmul.cc): each
// tensor-parallel all-gather feeding a matmul, or reduce-scatter fed by one,
// becomes N chunk matmuls and N - 1 shifts of 1 / N of the array around the
// ring, both ways. Checked against the plain program: the same bytes on the
// wire, the same matmul FLOPs, and nothing looped where the axis is no ring.
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
};

class CollectiveMatmul : public ::testing::TestWithParam<Case> {};

TEST_P(CollectiveMatmul, SameBytesAndFlopsInChunks) {
  const Case& c = GetParam();
  const MeshAxes mesh = testing::mesh(c.mesh);
  std::vector<std::string> axes;
  for (const auto& [name, size] : c.mesh)
    axes.push_back(name);
  const config::ModelSpec m = testing::llama3_70b();
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

INSTANTIATE_TEST_SUITE_P(Layouts, CollectiveMatmul,
                         ::testing::Values(Case{"1D RS+AG over 8", {{"x", 8}}, true},
                                           Case{"2D 4x4", {{"x", 4}, {"y", 4}}, false},
                                           Case{"2D 2x8", {{"x", 2}, {"y", 8}}, false}),
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

// Over an axis that is not a torus ring (no wraparound) the shift has no
// neighbour at the ends: the collectives stay whole, and the program says why.
TEST(CollectiveMatmulShape, NothingLoopsOffARing) {
  MeshAxes mesh = testing::mesh({{"x", 4}, {"y", 4}});
  mesh.rings = {false, true};
  const config::ModelSpec m = testing::llama3_70b();
  const config::ShardingSpec s = sharding({"x", "y"}, false, true);
  const Program p = lower(testing::decode(m, 64, 1024, s), mesh);
  const Program off = lower(testing::decode(m, 64, 1024, sharding({"x", "y"}, false, false)), mesh);
  // Only the collectives over y loop.
  EXPECT_GT(p.collective_matmul.looped, 0U);
  ASSERT_FALSE(p.collective_matmul.whole_reasons.empty());
  bool named_x = false;
  for (const std::string& r : p.collective_matmul.whole_reasons)
    named_x = named_x || r.find("not one torus ring") != std::string::npos;
  EXPECT_TRUE(named_x);
  EXPECT_TRUE(testing::named(p.stages[0], "L3.ffn.up.scatter_x.shift_up").empty());
  mesh.rings = {false, false};
  const Program none = lower(testing::decode(m, 64, 1024, s), mesh);
  EXPECT_EQ(none.collective_matmul.looped, 0U);
  EXPECT_EQ(testing::fingerprint(none), testing::fingerprint(off));
}

}  // namespace
}  // namespace podsim::workload
