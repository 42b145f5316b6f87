// Multi-head latent attention (model.mla, README.md "Multi-head latent
// attention"): DeepSeek-V3's parameter count and KV cache per token against
// its reports, the absorbed decode and materialised prefill shapes, and
// models without mla lowered as before.
#include <gtest/gtest.h>

#include "workload/model_math.h"
#include "workload_fixture.h"

namespace podsim::workload {
namespace {

// DeepSeek-V3 [DeepSeek-AI, arXiv:2412.19437, sections 2.1.1 and 4.2;
// config.json]: 61 layers, d 7168, 128 heads, d_c 512, d_c' 1536, nope 128,
// rope 64, v 128; first 3 layers dense (FFN 18432), then 256 routed experts
// and 1 shared of 2048, top-8; vocabulary 129280, untied.
config::ModelSpec deepseek_v3() {
  config::ModelSpec m;
  m.name = "DeepSeek-V3";
  m.layers = 61;
  m.d_model = 7168;
  m.heads = 128;
  m.kv_heads = 128;  // as the loader sets them with mla
  m.head_dim = 192;
  m.mla = config::MlaSpec{512, 1536, 128, 64, 128};
  m.ffn_dim = 18432;
  m.gated_ffn = true;
  m.vocab = 129280;
  m.tied_embeddings = false;
  m.moe = config::MoeSpec{256, 8, 1, 2048, 3, 1};
  return m;
}

config::ShardingSpec tensor(bool by_batch, bool reduce_scatter = false) {
  config::ShardingSpec s;
  s.tensor_axes = {"x"};
  if (by_batch)
    s.kv_layout = config::KvLayout::kByBatch;
  if (reduce_scatter)
    s.tensor_collective = config::TensorCollective::kReduceScatterAllGather;
  return s;
}

TEST(Mla, ParameterCountIsTheReports) {
  // Per layer: W_DQ 7168 x 1536 = 11010048, W_UQ 1536 x 128 x 192 =
  // 37748736, W_DKV 7168 x 576 = 4128768, W_UK and W_UV 512 x 128 x 256 =
  // 16777216, W_O 128 x 128 x 7168 = 117440512, latent norms 2048: 187107328.
  // Dense FFN 3 x 7168 x 18432 = 396361728 (3 layers); MoE layer 257 x 3 x
  // 7168 x 2048 + router 7168 x 256 = 11320164352 (58 layers); embedding and
  // LM head 2 x 129280 x 7168 = 1853358080; norms 2 x 7168 per layer + 7168.
  const uint64_t want = 61ull * 187107328 + 3ull * 396361728 + 58ull * 11320164352 + 1853358080 +
                        61ull * 2 * 7168 + 7168;
  EXPECT_EQ(parameter_count(deepseek_v3()), want);
  // The report: 671B total (the main model, without the MTP module).
  EXPECT_NEAR(static_cast<double>(want) / 671e9, 1.0, 0.01);
  // 37B activated per token: 35.7e9 in the layers (the router included)
  // and 0.93e9 each for the embedding table and LM head.
  const double active = static_cast<double>(active_layer_parameters(deepseek_v3()));
  EXPECT_NEAR((active + 2 * 129280.0 * 7168) / 37e9, 1.0, 0.02);
}

TEST(Mla, KvCachePerTokenIsTheLatentAndTheRopeKey) {
  // DeepSeek-V2 (arXiv:2405.04434) Table 1: (d_c + d_h^R) l elements per
  // token, (512 + 64) x 61 = 35136 for V3, whatever the heads.
  const config::ModelSpec m = deepseek_v3();
  EXPECT_EQ(m.layers * m.kv_cache_width(), 35136u);
  EXPECT_NEAR(m.layers * m.kv_cache_width() / (4.5 * 128 * 61), 1.0, 0.01);  // 4.5 d_h l
  // Lowered on one chip: batch x (context + 1) tokens x 35136 x 2 bytes.
  const Program p = lower(testing::decode(m, 4, 1023), testing::mesh({}));
  EXPECT_EQ(p.memory_per_chip.kv_cache_bytes, 4ull * 1024 * 35136 * 2);
  // KV by heads: every one of 8 tensor chips holds the whole latent; by
  // batch, an eighth of the sequences each.
  const MeshAxes mesh = testing::mesh({{"x", 8}});
  EXPECT_EQ(lower(testing::decode(m, 16, 1023, tensor(false)), mesh).memory_per_chip.kv_cache_bytes,
            16ull * 1024 * 35136 * 2);
  EXPECT_EQ(lower(testing::decode(m, 16, 1023, tensor(true)), mesh).memory_per_chip.kv_cache_bytes,
            2ull * 1024 * 35136 * 2);
}

TEST(Mla, DecodeAttendsOverOneLatentHeadInTheAbsorbedForm) {
  const MeshAxes mesh = testing::mesh({{"x", 8}});
  for (const bool by_batch : {false, true}) {
    SCOPED_TRACE(by_batch ? "KV by batch" : "KV by heads");
    const Program p = lower(testing::decode(deepseek_v3(), 64, 4095, tensor(by_batch)), mesh);
    const StageProgram& st = p.stages[0];
    const auto core = testing::named(st, "L5.attn.core");
    ASSERT_EQ(core.size(), 1u);
    const chip::Attention& a = testing::attention(*core[0]);
    EXPECT_EQ(a.batch, by_batch ? 8u : 64u);
    EXPECT_EQ(a.heads, by_batch ? 128u : 16u);
    EXPECT_EQ(a.kv_heads, 1u);
    EXPECT_EQ(a.head_dim, 576u);    // scores: the latent and the RoPE part
    EXPECT_EQ(a.v_head_dim, 512u);  // values: the latent
    EXPECT_TRUE(a.values_in_keys);
    EXPECT_EQ(a.q_len, 1u);
    EXPECT_EQ(a.kv_len, 4096u);
    // W_UK into the query, W_UV after the attention, per local head.
    const chip::Matmul& absorb = testing::matmul(*testing::named(st, "L5.attn.q_absorb").at(0));
    EXPECT_EQ(absorb.batch, 16u);
    EXPECT_EQ(absorb.m, 64u);
    EXPECT_EQ(absorb.k, 128u);
    EXPECT_EQ(absorb.n, 512u);
    const chip::Matmul& v_up = testing::matmul(*testing::named(st, "L5.attn.v_up").at(0));
    EXPECT_EQ(v_up.batch, 16u);
    EXPECT_EQ(v_up.k, 512u);
    EXPECT_EQ(v_up.n, 128u);
    EXPECT_TRUE(testing::named(st, "L5.attn.k_up").empty());
    // Replicated down projections, head-sharded up and output projections.
    const chip::Matmul& kv_down = testing::matmul(*testing::named(st, "L5.attn.kv_down").at(0));
    EXPECT_EQ(kv_down.k, 7168u);
    EXPECT_EQ(kv_down.n, 576u);
    EXPECT_EQ(testing::matmul(*testing::named(st, "L5.attn.q_down").at(0)).n, 1536u);
    EXPECT_EQ(testing::matmul(*testing::named(st, "L5.attn.q_up").at(0)).n, 16u * 192);
    EXPECT_EQ(testing::matmul(*testing::named(st, "L5.attn.out").at(0)).k, 16u * 128);
    // By batch: the absorbed queries go out and the latent outputs come back.
    const auto to_batch = testing::named(st, "L5.attn.to_batch");
    ASSERT_EQ(to_batch.size(), by_batch ? 1u : 0u);
    if (by_batch) {
      EXPECT_EQ(testing::collective(*to_batch[0]).bytes, 64ull * 128 * 576 * 2);
      EXPECT_EQ(testing::collective(*testing::named(st, "L5.attn.to_heads").at(0)).bytes,
                64ull * 128 * 512 * 2);
    }
  }
}

TEST(Mla, TheAbsorbedAttentionReadsTheLatentOnce) {
  const Program p =
      lower(testing::decode(deepseek_v3(), 8, 4095, tensor(true)), testing::mesh({{"x", 8}}));
  const chip::Attention& a = testing::attention(*testing::named(p.stages[0], "L0.attn.core").at(0));
  const chip::OpWork w = chip::work(chip::Op{a});
  // One sequence, 128 heads: Q 128 x 576, the cache 4096 x 576, output 128 x 512.
  EXPECT_EQ(w.hbm_read_bytes, (128u * 576 + 4096u * 576) * 2);
  EXPECT_EQ(w.hbm_write_bytes, 128u * 512 * 2);
  EXPECT_DOUBLE_EQ(w.mxu_flops, 2.0 * 128 * 4096 * (576 + 512));
}

TEST(Mla, PrefillMaterialisesEveryHeadsKeysAndValues) {
  const MeshAxes mesh = testing::mesh({{"x", 4}});
  for (const uint32_t context : {0u, 1024u}) {
    config::ServingSpec s = testing::prefill(deepseek_v3(), 2, 512, tensor(false, true));
    s.scenario.context_len = context;
    const Program p = lower(s, mesh);
    const StageProgram& st = p.stages[0];
    const chip::Attention& a = testing::attention(*testing::named(st, "L5.attn.core").at(0));
    EXPECT_EQ(a.batch, 2u);
    EXPECT_EQ(a.heads, 32u);
    EXPECT_EQ(a.kv_heads, 32u);
    EXPECT_EQ(a.head_dim, 192u);
    EXPECT_EQ(a.v_head_dim, 128u);
    EXPECT_FALSE(a.values_in_keys);
    // Keys and values of every position, cached or new, from the latent.
    const chip::Matmul& k_up = testing::matmul(*testing::named(st, "L5.attn.k_up").at(0));
    EXPECT_EQ(k_up.m, 2u * (context + 512));
    EXPECT_EQ(k_up.k, 512u);
    EXPECT_EQ(k_up.n, 32u * 128);
    const chip::Matmul& v_up = testing::matmul(*testing::named(st, "L5.attn.v_up").at(0));
    EXPECT_EQ(v_up.m, 2u * (context + 512));
    EXPECT_EQ(v_up.n, 32u * 128);
    EXPECT_TRUE(testing::named(st, "L5.attn.q_absorb").empty());
    // The new tokens' latents are written: 2 x 512 x 576.
    const auto write = testing::named(st, "L5.attn.kv_write");
    ASSERT_EQ(write.size(), 1u);
    EXPECT_EQ(std::get<chip::Copy>(std::get<chip::Op>(write[0]->body)).bytes, 2u * 512 * 576 * 2);
  }
}

TEST(Mla, ModelFlopsCountTheMaterialisedForm) {
  const config::ServingSpec s = testing::decode(deepseek_v3(), 64, 4095);
  const double active = static_cast<double>(active_layer_parameters(s.model));
  const double want =
      2 * active * 64 + 2.0 * 7168 * 129280 * 64 + 2.0 * 61 * 128 * (192 + 128) * 4096 * 64;
  EXPECT_DOUBLE_EQ(model_flops(s), want);
}

TEST(Mla, WeightsPerChipFollowTheSharding) {
  // 8 tensor chips: per layer 15138816 + 2048 replicated and 21495808
  // split (README.md); dense FFN, experts, tables as for any model.
  config::ModelSpec dense = deepseek_v3();
  dense.moe.reset();
  dense.layers = 2;
  const Program p = lower(testing::decode(dense, 8, 63, tensor(false)), testing::mesh({{"x", 8}}));
  const uint64_t layer = 15138816 + 2048 + 21495808 + 2 * 7168 + 3ull * 7168 * 18432 / 8;
  const uint64_t tables = 2ull * 129280 * 7168 / 8 + 7168;
  EXPECT_EQ(p.memory_per_chip.weight_bytes, (2 * layer + tables) * 2);
}

TEST(Mla, LayoutsItIsNotLoweredForAreShapeErrors) {
  auto field_of = [](const config::ServingSpec& s, const MeshAxes& mesh) {
    try {
      lower(s, mesh);
    } catch (const ShapeError& e) {
      return e.field();
    }
    return std::string("none");
  };
  config::ShardingSpec two_d;
  two_d.tensor_axes = {"x", "y"};
  EXPECT_EQ(
      field_of(testing::decode(deepseek_v3(), 8, 63, two_d), testing::mesh({{"x", 2}, {"y", 4}})),
      "sharding.tensor_axes");
  config::ShardingSpec gathered;
  gathered.tensor_axes = {"x"};
  gathered.weight_gathered = true;
  EXPECT_EQ(field_of(testing::decode(deepseek_v3(), 8, 63, gathered), testing::mesh({{"x", 8}})),
            "sharding.weight_gathered");
  EXPECT_EQ(
      field_of(testing::prefill(deepseek_v3(), 8, 64, tensor(true)), testing::mesh({{"x", 8}})),
      "sharding.kv_layout");
}

TEST(Mla, ModelsWithoutItKeepOneWidthAttention) {
  // The attention of every other model scores and reads values of head_dim,
  // K and V apart: the op's new fields stay at their defaults, so its work
  // is what it was.
  const Program p = lower(testing::decode(testing::llama3_70b(), 64, 1023, tensor(true)),
                          testing::mesh({{"x", 8}}));
  const chip::Attention& a = testing::attention(*testing::named(p.stages[0], "L3.attn.core").at(0));
  EXPECT_EQ(a.v_head_dim, 0u);
  EXPECT_FALSE(a.values_in_keys);
  chip::Attention same = a;
  same.v_head_dim = a.head_dim;
  const chip::OpWork w = chip::work(chip::Op{a});
  const chip::OpWork w2 = chip::work(chip::Op{same});
  EXPECT_EQ(w.hbm_read_bytes, w2.hbm_read_bytes);
  EXPECT_EQ(w.hbm_write_bytes, w2.hbm_write_bytes);
  EXPECT_EQ(w.vmem_bytes, w2.vmem_bytes);
  EXPECT_DOUBLE_EQ(w.mxu_flops, w2.mxu_flops);
  // Q, K, V and output as the formulas of compute_ops.h give them.
  EXPECT_EQ(w.hbm_read_bytes, (8u * 64 * 128 + 2u * 8 * 1024 * 8 * 128) * 2);
  EXPECT_DOUBLE_EQ(w.mxu_flops, 4.0 * 8 * 64 * 1024 * 128);
  EXPECT_TRUE(testing::named(p.stages[0], "L3.attn.q_absorb").empty());
  EXPECT_EQ(testing::named(p.stages[0], "L3.attn.qkv").size(), 1u);
}

}  // namespace
}  // namespace podsim::workload
