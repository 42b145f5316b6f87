// 2D weight-stationary and weight-gathered layouts: per-chip shapes, their
// collectives, and 2D's smaller communication at large T.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using config::CollectiveKind;
using testing::collective;
using testing::matmul;
using testing::named;

double matmul_and_attention_flops(const StageProgram& s) {
  double flops = 0;
  for (const Instruction& ins : s.instructions) {
    if (!testing::is_compute(ins))
      continue;
    const chip::Op& op = std::get<chip::Op>(ins.body);
    if (const auto* mm = std::get_if<chip::Matmul>(&op))
      flops += 2.0 * static_cast<double>(mm->batch * mm->m * mm->k * mm->n);
    if (const auto* at = std::get_if<chip::Attention>(&op))
      flops += 4.0 * static_cast<double>(at->batch * at->heads * at->kv_len * at->head_dim);
  }
  return flops;
}

config::ShardingSpec two_d() {
  config::ShardingSpec s;
  s.tensor_axes = {"x", "y"};
  return s;
}

// The wide model (d 16384, 256 heads of 64, F 65536) on 16 x 16 chips:
// d over X then Y, heads and F over Y; attention by sequence over X.
TEST(TensorParallel2D, ShapesAndCollectivesOfOneLayer) {
  const uint64_t batch = 256;
  const Program p = lower(testing::decode(testing::wide_model(), batch, 2047, two_d()),
                          testing::mesh({{"x", 16}, {"y", 16}}));
  const StageProgram& s = p.stages[0];
  const chip::Matmul& qkv = matmul(*named(s, "L0.attn.qkv")[0]);
  EXPECT_EQ(qkv.m, batch);
  EXPECT_EQ(qkv.k, 16384u / 16);
  EXPECT_EQ(qkv.n, (256u / 16 + 2 * 256 / 16) * 64);
  const chip::Attention& a = testing::attention(*named(s, "L0.attn.core")[0]);
  EXPECT_EQ(a.batch, batch / 16);
  EXPECT_EQ(a.heads, 16u);
  EXPECT_EQ(a.kv_heads, 16u);
  const chip::Matmul& out = matmul(*named(s, "L0.attn.out")[0]);
  EXPECT_EQ(out.k, 16u * 64);
  EXPECT_EQ(out.n, 1024u);
  EXPECT_EQ(matmul(*named(s, "L0.ffn.up_gate")[0]).n, 2u * 65536 / 16);
  const chip::Matmul& down = matmul(*named(s, "L0.ffn.down")[0]);
  EXPECT_EQ(down.k, 65536u / 16);
  EXPECT_EQ(down.n, 1024u);

  struct Expected {
    const char* name;
    CollectiveKind kind;
    const char* axis;
    uint64_t bytes;
  };
  const Expected expected[] = {
      {"L0.attn.gather_y", CollectiveKind::kAllGather, "y", batch * 1024 * 2},
      {"L0.attn.qkv.scatter_x", CollectiveKind::kReduceScatter, "x", batch * 48 * 64 * 2},
      {"L0.attn.out.gather_x", CollectiveKind::kAllGather, "x", batch * 16 * 64 * 2},
      {"L0.attn.scatter_y", CollectiveKind::kReduceScatter, "y", batch * 1024 * 2},
      {"L0.ffn.gather_y", CollectiveKind::kAllGather, "y", batch * 1024 * 2},
      {"L0.ffn.up.scatter_x", CollectiveKind::kReduceScatter, "x", batch * 8192 * 2},
      {"L0.ffn.down.gather_x", CollectiveKind::kAllGather, "x", batch * 4096 * 2},
      {"L0.ffn.scatter_y", CollectiveKind::kReduceScatter, "y", batch * 1024 * 2},
  };
  for (const Expected& e : expected) {
    const auto found = named(s, e.name);
    ASSERT_EQ(found.size(), 1u) << e.name;
    const config::CollectiveSpec& c = collective(*found[0]);
    EXPECT_EQ(c.kind, e.kind) << e.name;
    EXPECT_EQ(c.axes, std::vector<std::string>{e.axis}) << e.name;
    EXPECT_EQ(c.bytes, e.bytes) << e.name;
  }
  // The norm's statistics: one fp32 per token over both axes.
  const config::CollectiveSpec& stats = collective(*named(s, "L0.attn.norm.allreduce")[0]);
  EXPECT_EQ(stats.axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(stats.bytes, batch * 4);
}

// At T = 256, 1D all-reduces rows x d twice per layer while 2D moves shards
// of d / X and F / Y: far fewer bytes per chip, for the same FLOPs per chip.
TEST(TensorParallel2D, CommunicatesLessThan1DAtLargeT) {
  const config::ModelSpec m = testing::wide_model();
  config::ShardingSpec one_d;
  one_d.tensor_axes = {"t"};
  const MeshAxes flat = testing::mesh({{"t", 256}});
  const MeshAxes square = testing::mesh({{"x", 16}, {"y", 16}});
  const Program p1 = lower(testing::decode(m, 256, 2047, one_d), flat);
  const Program p2 = lower(testing::decode(m, 256, 2047, two_d()), square);
  const double bytes_1d = testing::wire_bytes_per_chip(p1.stages[0], flat);
  const double bytes_2d = testing::wire_bytes_per_chip(p2.stages[0], square);
  // 1D per layer: 2 all-reduces of 256 x 16384 x 2 bytes.
  EXPECT_GT(bytes_1d, 4 * 2 * 2 * 256.0 * 16384 * 2 * 255 / 256);
  EXPECT_LT(bytes_2d, bytes_1d / 2);
  EXPECT_DOUBLE_EQ(matmul_and_attention_flops(p1.stages[0]),
                   matmul_and_attention_flops(p2.stages[0]));
}

TEST(TensorParallel2D, KvByBatchSplitsSequencesOverBothAxes) {
  config::ShardingSpec sh = two_d();
  sh.kv_layout = config::KvLayout::kByBatch;
  const Program p = lower(testing::decode(testing::wide_model(), 256, 100, sh),
                          testing::mesh({{"x", 4}, {"y", 8}}));
  const StageProgram& s = p.stages[0];
  const chip::Attention& a = testing::attention(*named(s, "L0.attn.core")[0]);
  EXPECT_EQ(a.batch, 256u / 32);
  EXPECT_EQ(a.heads, 256u);
  const config::CollectiveSpec& c = collective(*named(s, "L0.attn.to_batch")[0]);
  EXPECT_EQ(c.axes, std::vector<std::string>{"y"});
  EXPECT_EQ(c.bytes, 256u / 4 * (256 + 512) * 64 * 2);
}

// Weight-gathered: activations split by sequence over T, every matrix
// all-gathered (V = its whole size) before use; no activation collectives.
TEST(WeightGathered, GathersEveryMatrixAndSplitsSequences) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  sh.weight_gathered = true;
  const uint64_t batch = 16;
  const uint64_t len = 512;
  const Program p =
      lower(testing::prefill(testing::llama3_8b(), batch, len, sh), testing::mesh({{"x", 4}}));
  const StageProgram& s = p.stages[0];
  const chip::Attention& a = testing::attention(*named(s, "L5.attn.core")[0]);
  EXPECT_EQ(a.batch, batch / 4);
  EXPECT_EQ(a.heads, 32u);
  EXPECT_EQ(a.kv_heads, 8u);
  const chip::Matmul& qkv = matmul(*named(s, "L5.attn.qkv")[0]);
  EXPECT_EQ(qkv.m, batch / 4 * len);
  EXPECT_EQ(qkv.n, (32u + 16) * 128);
  const uint64_t d = 4096;
  const uint64_t f = 14336;
  const std::pair<const char*, uint64_t> gathers[] = {
      {".attn.qkv.gather_weights", d * 48 * 128 * 2},
      {".attn.out.gather_weights", 32 * 128 * d * 2},
      {".ffn.up_gate.gather_weights", 2 * d * f * 2},
      {".ffn.down.gather_weights", f * d * 2},
  };
  for (const auto& [suffix, bytes] : gathers) {
    const auto found = named(s, suffix);
    ASSERT_EQ(found.size(), 32u) << suffix;
    EXPECT_EQ(collective(*found[7]).kind, CollectiveKind::kAllGather);
    EXPECT_EQ(collective(*found[7]).bytes, bytes) << suffix;
  }
  size_t layer_collectives = 0;
  for (const Instruction& ins : s.instructions)
    layer_collectives += ins.layer >= 0 && ins.op_class == OpClass::kCollective;
  EXPECT_EQ(layer_collectives, 4u * 32);
  // One buffer per matrix: layer 1's gather waits for layer 0's matmul; and
  // one weight gather in flight at a time: for layer 0's last, the FFN down
  // projection's.
  const Instruction& g1 = *named(s, "L1.attn.qkv.gather_weights")[0];
  const auto index = [&](const Instruction* ins) {
    return static_cast<uint32_t>(ins - s.instructions.data());
  };
  EXPECT_EQ(g1.deps, (std::vector<uint32_t>{index(named(s, "L0.attn.qkv")[0]),
                                            index(named(s, "L0.ffn.down.gather_weights")[0])}));
  // Embedding all-to-all and the LM head's gather of the T chips' last tokens.
  EXPECT_EQ(collective(*named(s, "embed.to_rows")[0]).bytes, batch * len * d * 2);
  EXPECT_EQ(collective(*named(s, "lm_head.gather")[0]).bytes, batch * d * 2);
  EXPECT_EQ(matmul(*named(s, "lm_head")[0]).m, batch);
  // Weights: a quarter of everything plus one layer's gathered matrices.
  const uint64_t layer = d * 48 * 128 + 32 * 128 * d + 3 * d * f;
  const uint64_t stored = (32 * layer + 2 * 128256 * d) / 4 + 32 * 2 * d + d;
  EXPECT_EQ(p.memory_per_chip.weight_bytes, (stored + layer) * 2);
}

}  // namespace
}  // namespace podsim::workload
