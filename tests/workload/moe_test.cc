// Mixture of experts: all-to-all only with expert parallelism, per-chip
// expert shapes under uniform routing, expert weights per chip.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using config::CollectiveKind;
using testing::collective;
using testing::matmul;
using testing::named;

// small_moe: 4 layers (0 dense, 1-3 MoE), d 1024, 16 experts of 512, top-2,
// one shared expert.
size_t count_all_to_all(const StageProgram& s, int32_t layer) {
  size_t n = 0;
  for (const Instruction& ins : s.instructions) {
    const auto* c = std::get_if<config::CollectiveSpec>(&ins.body);
    n += c != nullptr && c->kind == CollectiveKind::kAllToAll && ins.layer == layer;
  }
  return n;
}

config::ShardingSpec data_parallel(bool experts_too) {
  config::ShardingSpec s;
  s.data_axes = {"x"};
  if (experts_too)
    s.expert_axes = {"x"};
  return s;
}

TEST(Moe, AllToAllAppearsOnlyWithExpertParallelism) {
  const MeshAxes m = testing::mesh({{"x", 8}});
  const Program ep = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(true)), m);
  const Program dp = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(false)), m);
  EXPECT_EQ(count_all_to_all(ep.stages[0], 0), 0u);  // the dense layer
  for (int32_t l = 1; l < 4; ++l) {
    EXPECT_EQ(count_all_to_all(ep.stages[0], l), 2u) << l;
    EXPECT_EQ(count_all_to_all(dp.stages[0], l), 0u) << l;
  }
  // 8 tokens per chip, 2 copies each, d 1024 x 2 bytes, over 8 chips.
  const config::CollectiveSpec& dispatch = collective(*named(ep.stages[0], "L1.moe.dispatch")[0]);
  EXPECT_EQ(dispatch.axes, std::vector<std::string>{"x"});
  EXPECT_EQ(dispatch.bytes, 8u * (8 * 2) * 1024 * 2);
  EXPECT_EQ(collective(*named(ep.stages[0], "L1.moe.combine")[0]).bytes, dispatch.bytes);
}

// Uniform routing: a chip receives as many assignments as it sends (8 tokens
// x top-2 = 16), spread over its 16 / 8 = 2 experts: 8 tokens each.
// Without expert parallelism its 16 experts get one token each.
TEST(Moe, ExpertMatmulsCoverTheRoutedTokens) {
  const MeshAxes m = testing::mesh({{"x", 8}});
  const Program ep = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(true)), m);
  const chip::Matmul& up = matmul(*named(ep.stages[0], "L2.moe.experts.up_gate")[0]);
  EXPECT_EQ(up.batch, 2u);
  EXPECT_EQ(up.m, 8u);
  EXPECT_EQ(up.k, 1024u);
  EXPECT_EQ(up.n, 2u * 512);
  const chip::Matmul& down = matmul(*named(ep.stages[0], "L2.moe.experts.down")[0]);
  EXPECT_EQ(down.batch, 2u);
  EXPECT_EQ(down.k, 512u);
  EXPECT_EQ(down.n, 1024u);
  const chip::Matmul& router = matmul(*named(ep.stages[0], "L2.moe.router")[0]);
  EXPECT_EQ(router.m, 8u);
  EXPECT_EQ(router.n, 16u);
  EXPECT_EQ(matmul(*named(ep.stages[0], "L2.moe.shared.up_gate")[0]).n, 2u * 512);

  const Program dp = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(false)), m);
  const chip::Matmul& all = matmul(*named(dp.stages[0], "L2.moe.experts.up_gate")[0]);
  EXPECT_EQ(all.batch, 16u);
  EXPECT_EQ(all.m, 1u);
}

// Expert weights per chip: experts / E of them. Everything else is the same,
// so the difference between E = 1 and E = 8 is 3 MoE layers x 14 experts x
// 3 matrices of 1024 x 512 x 2 bytes.
TEST(Moe, ExpertWeightsPerChipAreExpertsOverE) {
  const MeshAxes m = testing::mesh({{"x", 8}});
  const Program ep = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(true)), m);
  const Program dp = lower(testing::decode(testing::small_moe(), 64, 255, data_parallel(false)), m);
  const uint64_t expert = 3ull * 1024 * 512 * 2;
  EXPECT_EQ(dp.memory_per_chip.weight_bytes - ep.memory_per_chip.weight_bytes, 3 * 14 * expert);
  const uint64_t d = 1024;
  const uint64_t attention = 4 * d * 16 * 64;
  const uint64_t elements = 2 * 32768 * d + d + 4 * (attention + 2 * d) + 3 * d * 2048 +
                            3 * (d * 16 + (2 + 1) * 3 * d * 512);
  EXPECT_EQ(ep.memory_per_chip.weight_bytes, elements * 2);
}

// Experts over the tensor axis: the 4 chips hold the same tokens after
// attention, so each routes a quarter of them and an all-gather restores
// them; expert FFNs are not split further (no all-reduce).
TEST(Moe, ExpertParallelismOverTheTensorAxisSplitsTokens) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  sh.expert_axes = {"x"};
  const MeshAxes m = testing::mesh({{"x", 4}});
  const Program p = lower(testing::decode(testing::small_moe(), 16, 255, sh), m);
  const StageProgram& s = p.stages[0];
  EXPECT_EQ(matmul(*named(s, "L1.moe.router")[0]).m, 4u);
  const chip::Matmul& up = matmul(*named(s, "L1.moe.experts.up_gate")[0]);
  EXPECT_EQ(up.batch, 4u);  // 4 tokens x top-2 over 4 local experts
  EXPECT_EQ(up.m, 2u);
  EXPECT_EQ(up.n, 2u * 512);
  EXPECT_EQ(collective(*named(s, "L1.moe.dispatch")[0]).bytes, 4u * 8 * 1024 * 2);
  EXPECT_TRUE(named(s, "L1.moe.allreduce").empty());
  const config::CollectiveSpec& gather = collective(*named(s, "L1.moe.gather")[0]);
  EXPECT_EQ(gather.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(gather.bytes, 16u * 1024 * 2);
  try {
    lower(testing::decode(testing::small_moe(), 2, 255, sh), m);
    FAIL() << "2 tokens cannot split over 4 chips";
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.field(), "scenario.batch");
  }
}

// Tensor parallelism without expert parallelism: every expert split over T,
// partial sums all-reduced, no all-to-all.
TEST(Moe, TensorParallelExpertsAreAllReduced) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  const Program p =
      lower(testing::decode(testing::small_moe(), 16, 255, sh), testing::mesh({{"x", 4}}));
  const StageProgram& s = p.stages[0];
  EXPECT_EQ(matmul(*named(s, "L3.moe.experts.up_gate")[0]).n, 2u * 512 / 4);
  EXPECT_EQ(matmul(*named(s, "L3.moe.shared.down")[0]).k, 512u / 4);
  const config::CollectiveSpec& ar = collective(*named(s, "L3.moe.allreduce")[0]);
  EXPECT_EQ(ar.bytes, 16u * 1024 * 2);
  EXPECT_EQ(count_all_to_all(s, 3), 0u);
}

}  // namespace
}  // namespace podsim::workload
