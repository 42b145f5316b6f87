// 1D tensor parallelism: per-chip shapes and the collectives of every layer,
// computed by hand from the architecture.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using config::CollectiveKind;
using testing::collective;
using testing::matmul;
using testing::named;

config::ShardingSpec tensor_over(std::vector<std::string> axes) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  return s;
}

// LLaMA 3 70B on 8 chips: every chip has 64 / 8 query heads and 8 / 8 KV
// heads, F / 8 FFN columns and vocab / 8 of the LM head.
TEST(TensorParallel1D, Llama70bShapesOnEightChips) {
  const uint32_t batch = 32;
  const Program p = lower(testing::decode(testing::llama3_70b(), batch, 1023, tensor_over({"x"})),
                          testing::mesh({{"x", 8}}));
  ASSERT_EQ(p.stages.size(), 1u);
  const StageProgram& s = p.stages[0];
  const auto qkv = named(s, ".attn.qkv");
  ASSERT_EQ(qkv.size(), 80u);
  EXPECT_EQ(matmul(*qkv[0]).m, batch);
  EXPECT_EQ(matmul(*qkv[0]).k, 8192u);
  EXPECT_EQ(matmul(*qkv[0]).n, (64u + 2 * 8) * 128 / 8);
  EXPECT_EQ(qkv[0]->op_class, OpClass::kAttentionProjection);
  const chip::Matmul& out = matmul(*named(s, ".attn.out")[0]);
  EXPECT_EQ(out.k, 64u * 128 / 8);
  EXPECT_EQ(out.n, 8192u);
  const chip::Matmul& up = matmul(*named(s, ".ffn.up_gate")[0]);
  EXPECT_EQ(up.k, 8192u);
  EXPECT_EQ(up.n, 2u * 28672 / 8);  // up and gate, fused
  const chip::Matmul& down = matmul(*named(s, ".ffn.down")[0]);
  EXPECT_EQ(down.k, 28672u / 8);
  EXPECT_EQ(down.n, 8192u);
  const chip::Attention& a = testing::attention(*named(s, ".attn.core")[0]);
  EXPECT_EQ(a.batch, batch);
  EXPECT_EQ(a.q_len, 1u);
  EXPECT_EQ(a.kv_len, 1024u);
  EXPECT_EQ(a.heads, 8u);
  EXPECT_EQ(a.kv_heads, 1u);
  EXPECT_EQ(a.phase, chip::AttentionPhase::kDecode);
  const chip::Matmul& head = matmul(*named(s, "lm_head")[0]);
  EXPECT_EQ(head.m, batch);
  EXPECT_EQ(head.n, 128256u / 8);
}

// With 16 chips and 8 KV heads each KV head is replicated on two chips:
// a chip projects its 4 query heads and the one KV head they share.
TEST(TensorParallel1D, KvHeadsAreReplicatedWhenFewerThanChips) {
  const Program p = lower(testing::decode(testing::llama3_70b(), 16, 100, tensor_over({"x"})),
                          testing::mesh({{"x", 16}}));
  const StageProgram& s = p.stages[0];
  EXPECT_EQ(matmul(*named(s, ".attn.qkv")[0]).n, (64u / 16 + 2 * 1) * 128);
  const chip::Attention& a = testing::attention(*named(s, ".attn.core")[0]);
  EXPECT_EQ(a.heads, 4u);
  EXPECT_EQ(a.kv_heads, 1u);
}

// Each layer all-reduces tokens x d_model x 2 bytes twice over the tensor
// axis; the embedding adds one all-gather and the sampling one small
// all-reduce (value and index per token).
TEST(TensorParallel1D, TwoAllReducesPerLayer) {
  const uint32_t batch = 64;
  const config::ModelSpec m = testing::llama3_8b();
  const Program p =
      lower(testing::decode(m, batch, 511, tensor_over({"x"})), testing::mesh({{"x", 4}}));
  const StageProgram& s = p.stages[0];
  size_t all_reduces = 0;
  size_t collectives = 0;
  for (const Instruction& ins : s.instructions) {
    if (!std::holds_alternative<config::CollectiveSpec>(ins.body))
      continue;
    ++collectives;
    const config::CollectiveSpec& c = collective(ins);
    EXPECT_EQ(c.axes, std::vector<std::string>{"x"});
    if (ins.layer >= 0) {
      EXPECT_EQ(c.kind, CollectiveKind::kAllReduce) << ins.name;
      EXPECT_EQ(c.bytes, uint64_t{batch} * 4096 * 2) << ins.name;
      ++all_reduces;
    }
  }
  EXPECT_EQ(all_reduces, 2u * 32);
  EXPECT_EQ(collectives, 2u * 32 + 2);
  const config::CollectiveSpec& embed = collective(*named(s, "embed.gather")[0]);
  EXPECT_EQ(embed.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(embed.bytes, uint64_t{batch} * 4096 * 2);
  const config::CollectiveSpec& argmax = collective(*named(s, "lm_head.argmax.allreduce")[0]);
  EXPECT_EQ(argmax.bytes, uint64_t{batch} * 8);
}

// RS + AG: the row-parallel outputs are reduce-scattered by token, the norm
// runs on the chip's tokens / T, and an all-gather precedes the next
// column-parallel matmul (layer 0's attention reads the embedding's full
// rows; the LM head gathers the last rows).
TEST(TensorParallel1D, ReduceScatterAllGatherVariant) {
  const uint32_t batch = 64;
  config::ShardingSpec sh = tensor_over({"x"});
  sh.tensor_collective = config::TensorCollective::kReduceScatterAllGather;
  const Program p =
      lower(testing::decode(testing::llama3_8b(), batch, 511, sh), testing::mesh({{"x", 4}}));
  const StageProgram& s = p.stages[0];
  const uint64_t v = uint64_t{batch} * 4096 * 2;
  size_t rs = 0;
  size_t ag = 0;
  for (const Instruction& ins : s.instructions) {
    if (ins.layer < 0 || !std::holds_alternative<config::CollectiveSpec>(ins.body))
      continue;
    const config::CollectiveSpec& c = collective(ins);
    EXPECT_EQ(c.bytes, v) << ins.name;
    if (c.kind == CollectiveKind::kReduceScatter)
      ++rs;
    else if (c.kind == CollectiveKind::kAllGather)
      ++ag;
    else
      ADD_FAILURE() << ins.name;
  }
  EXPECT_EQ(rs, 2u * 32);
  EXPECT_EQ(ag, 2u * 32 - 1);
  EXPECT_TRUE(named(s, "L0.attn.gather").empty());
  EXPECT_EQ(collective(*named(s, "final.gather")[0]).bytes, v);
  const auto& norm = std::get<chip::Norm>(std::get<chip::Op>(named(s, "L1.attn.norm")[0]->body));
  EXPECT_EQ(norm.rows, batch / 4u);
  const auto& first = std::get<chip::Norm>(std::get<chip::Op>(named(s, "L0.attn.norm")[0]->body));
  EXPECT_EQ(first.rows, batch);
}

// KV by batch: an all-to-all trades the chip's heads of every sequence for
// every head of its sequences (V = tokens x (H + 2K) x hd x 2 bytes), and
// back for the outputs (V = tokens x H x hd x 2 bytes).
TEST(TensorParallel1D, KvByBatchAttendsOverAllHeadsOfFewerSequences) {
  const uint32_t batch = 32;
  config::ShardingSpec sh = tensor_over({"x"});
  sh.kv_layout = config::KvLayout::kByBatch;
  const Program p =
      lower(testing::decode(testing::llama3_8b(), batch, 999, sh), testing::mesh({{"x", 8}}));
  const StageProgram& s = p.stages[0];
  const chip::Attention& a = testing::attention(*named(s, ".attn.core")[0]);
  EXPECT_EQ(a.batch, batch / 8u);
  EXPECT_EQ(a.heads, 32u);
  EXPECT_EQ(a.kv_heads, 8u);
  const config::CollectiveSpec& to_batch = collective(*named(s, "L0.attn.to_batch")[0]);
  EXPECT_EQ(to_batch.kind, CollectiveKind::kAllToAll);
  EXPECT_EQ(to_batch.bytes, uint64_t{batch} * (32 + 16) * 128 * 2);
  EXPECT_EQ(collective(*named(s, "L0.attn.to_heads")[0]).bytes, uint64_t{batch} * 32 * 128 * 2);
}

// Prefill: tokens = batch x prompt_len rows; attention is causal over the
// prompt after the cached context; the LM head scores one token per sequence.
TEST(TensorParallel1D, PrefillShapes) {
  config::ServingSpec spec = testing::prefill(testing::llama3_8b(), 4, 2048, tensor_over({"x"}));
  spec.scenario.context_len = 1000;
  const Program p = lower(spec, testing::mesh({{"x", 4}}));
  const StageProgram& s = p.stages[0];
  EXPECT_EQ(matmul(*named(s, "L3.ffn.down")[0]).m, 4u * 2048);
  const chip::Attention& a = testing::attention(*named(s, "L3.attn.core")[0]);
  EXPECT_EQ(a.q_len, 2048u);
  EXPECT_EQ(a.kv_len, 3048u);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(a.phase, chip::AttentionPhase::kPrefill);
  EXPECT_EQ(matmul(*named(s, "lm_head")[0]).m, 4u);
  const auto& write =
      std::get<chip::Copy>(std::get<chip::Op>(named(s, "L3.attn.kv_write")[0]->body));
  EXPECT_EQ(write.bytes, 4u * 2048 * 2 * 2 * 128 * 2);  // 2 of the 8 KV heads, K and V
}

// Summing per-chip matmul and attention FLOPs over the chips recovers the
// model FLOPs when nothing is replicated (T divides the KV heads).
TEST(TensorParallel1D, PerChipFlopsTimesChipsEqualModelFlops) {
  const Program p = lower(testing::decode(testing::llama3_8b(), 16, 4095, tensor_over({"x"})),
                          testing::mesh({{"x", 8}}));
  double flops = 0;
  for (const Instruction& ins : p.stages[0].instructions) {
    if (!testing::is_compute(ins))
      continue;
    const chip::Op& op = std::get<chip::Op>(ins.body);
    if (const auto* mm = std::get_if<chip::Matmul>(&op))
      flops += 2.0 * static_cast<double>(mm->batch * mm->m * mm->k * mm->n);
    if (const auto* at = std::get_if<chip::Attention>(&op))
      flops += 4.0 * static_cast<double>(at->batch * at->heads * at->kv_len * at->head_dim);
  }
  EXPECT_NEAR(flops * 8, p.model_flops, 1e-9 * p.model_flops);
}

}  // namespace
}  // namespace podsim::workload
