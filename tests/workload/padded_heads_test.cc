// sharding.pad_heads: heads (and KV heads) that do not split over the chips
// that split heads are padded (config/head_padding.h). The lowered program
// computes and stores the padded heads, exactly as a model that has them
// would; model FLOPs count the real heads only. Expectations are by hand.
#include <gtest/gtest.h>

#include "config/head_padding.h"
#include "workload/model_math.h"
#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using config::padded_heads;
using config::PaddedHeads;

// PaLM-540B's attention shape (Chowdhery et al. 2022: 48 heads of 256,
// multi-query) made small and grouped-query: 48 heads over 8 KV heads of
// 128, d 6144 and FFN 24576 (multiples of 64), 4 layers.
config::ModelSpec palm_like() {
  config::ModelSpec m;
  m.name = "palm-like";
  m.layers = 4;
  m.d_model = 6144;
  m.heads = 48;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_dim = 24576;
  m.vocab = 65536;
  return m;
}

config::ShardingSpec tensor(std::vector<std::string> axes, bool pad) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  s.pad_heads = pad;
  return s;
}

// The program without its model FLOPs, to compare shapes alone.
std::string shapes(Program p) {
  p.model_flops = 0;
  return testing::fingerprint(p);
}

TEST(PaddedHeadsRule, KnownShapes) {
  // PaLM-540B on 64-way tensor parallelism: the 8 KV heads replicate over
  // 64 chips, the groups grow from 6 to 8 query heads.
  EXPECT_EQ(padded_heads(48, 8, 64), (PaddedHeads{64, 8}));
  EXPECT_EQ(padded_heads(48, 1, 64), (PaddedHeads{64, 1}));    // multi-query
  EXPECT_EQ(padded_heads(48, 48, 64), (PaddedHeads{64, 64}));  // multi-head: both padded
  // Heads split over 8, KV heads neither split nor replicate: 16 KV heads,
  // each still with its 4 query heads.
  EXPECT_EQ(padded_heads(48, 12, 8), (PaddedHeads{64, 16}));
  EXPECT_EQ(padded_heads(64, 8, 6), (PaddedHeads{96, 12}));
  EXPECT_EQ(padded_heads(12, 3, 8), (PaddedHeads{16, 4}));  // 3 KV heads pad to 4, replicated
  EXPECT_EQ(padded_heads(64, 8, 8), (PaddedHeads{64, 8}));  // already splits: no-op
  EXPECT_EQ(padded_heads(7, 7, 1), (PaddedHeads{7, 7}));    // one chip: nothing to split
}

TEST(PaddedHeadsRule, SplitsKeepsGroupsAndIsTheIdentityWhenNothingIsToPad) {
  for (uint64_t n = 1; n <= 24; ++n) {
    for (uint64_t kv = 1; kv <= 24; ++kv) {
      for (uint64_t g = 1; g <= 6; ++g) {
        const uint64_t h = g * kv;
        const PaddedHeads p = padded_heads(h, kv, n);
        SCOPED_TRACE(std::to_string(h) + "/" + std::to_string(kv) + " over " + std::to_string(n));
        EXPECT_EQ(p.heads % n, 0U);
        EXPECT_TRUE(config::kv_heads_fit(p.kv_heads, n));
        ASSERT_EQ(p.heads % p.kv_heads, 0U);
        EXPECT_GE(p.kv_heads, kv);
        EXPECT_GE(p.heads / p.kv_heads, g);  // every real group keeps its query heads
        // The fewest KV heads that fit, and no more query heads than needed.
        for (uint64_t fewer = kv; fewer < p.kv_heads; ++fewer) {
          EXPECT_FALSE(config::kv_heads_fit(fewer, n));
        }
        EXPECT_LT(p.heads - p.kv_heads * g, std::lcm(n, p.kv_heads));
        if (h % n == 0 && config::kv_heads_fit(kv, n)) {
          EXPECT_EQ(p, (PaddedHeads{h, kv}));
        }
      }
    }
  }
}

// 48 heads over 8 KV heads on 64 chips: each chip computes one (padded)
// query head of one replicated KV head, as a 64-head model would; the model
// FLOPs are the 48-head model's.
TEST(PaddedHeads, FortyEightHeadsOnSixtyFourChips) {
  const MeshAxes mesh = testing::mesh({{"model", 64}});
  const config::ServingSpec padded =
      testing::decode(palm_like(), 16, 2048, tensor({"model"}, true));
  const Program p = lower(padded, mesh);
  EXPECT_EQ(p.heads, 64U);  // what the program computes, for the reports
  EXPECT_EQ(p.kv_heads, 8U);
  const StageProgram& stage = p.stages[0];
  const chip::Attention& a = testing::attention(*testing::named(stage, "L0.attn.core").at(0));
  EXPECT_EQ(a.heads, 1U);
  EXPECT_EQ(a.kv_heads, 1U);
  const chip::Matmul& qkv = testing::matmul(*testing::named(stage, "L0.attn.qkv").at(0));
  EXPECT_EQ(qkv.k, 6144U);
  EXPECT_EQ(qkv.n, (1U + 2U) * 128U);  // one query head, K and V of one KV head
  EXPECT_EQ(testing::matmul(*testing::named(stage, "L0.attn.out").at(0)).k, 128U);

  // The same program as a model with 64 heads, which split.
  config::ServingSpec wide = padded;
  wide.model.heads = 64;
  wide.sharding.pad_heads = false;
  const Program w = lower(wide, mesh);
  EXPECT_EQ(shapes(p), shapes(w));

  // Model FLOPs: the real 48 heads. 16 fewer heads than the wide model per
  // layer: Q and O weights 2 x 16 x 128 x 6144, at 2 FLOPs per weight and
  // token, and QK^T and PV over kv_len 2049 keys (4 FLOPs per head_dim).
  EXPECT_DOUBLE_EQ(p.model_flops, model_flops(padded));
  const double layers = 4, batch = 16, kv_len = 2049;
  const double fewer = layers * batch * (2.0 * 2 * 16 * 128 * 6144 + 4.0 * 16 * 128 * kv_len);
  EXPECT_DOUBLE_EQ(w.model_flops - p.model_flops, fewer);
}

// Weights per chip grow by the padded Q and O columns: per layer 2 x (64 -
// 48) x 128 x 6144 / 64 elements more than the real model's share.
TEST(PaddedHeads, PaddedWeightsOccupyHbm) {
  const MeshAxes mesh = testing::mesh({{"model", 64}});
  const Program p = lower(testing::decode(palm_like(), 16, 2048, tensor({"model"}, true)), mesh);
  const uint64_t d = 6144, hd = 128, t = 64, f = 24576, vocab = 65536, layers = 4;
  // Real share per layer: Q, K, V and O of 48 heads over 8 KV heads; the KV
  // heads are replicated (one per chip, 8 chips each).
  const uint64_t layer_common = 3 * d * f / t + 2 * d + 2 * d * hd;  // FFN, norms, K and V
  const uint64_t real_qo = 2 * d * 48 * hd / t;
  const uint64_t padded_qo = 2 * d * 64 * hd / t;
  const uint64_t ends = 2 * vocab * d / t + d;
  EXPECT_EQ(p.memory_per_chip.weight_bytes, 2 * (layers * (layer_common + padded_qo) + ends));
  EXPECT_EQ(p.memory_per_chip.weight_bytes - 2 * (layers * (layer_common + real_qo) + ends),
            2 * layers * 2 * d * 16 * hd / t);
}

// Heads that split (48 over 8 chips) with KV heads that do not (12): 16 KV
// heads, each keeping its 4 query heads, so 64 heads; the padded KV heads
// take KV cache.
TEST(PaddedHeads, KvHeadsPaddedWhenTheyNeitherSplitNorReplicate) {
  const MeshAxes mesh = testing::mesh({{"model", 8}});
  config::ModelSpec m = palm_like();
  m.kv_heads = 12;
  const config::ServingSpec padded = testing::decode(m, 16, 2048, tensor({"model"}, true));
  const Program p = lower(padded, mesh);
  const chip::Attention& a = testing::attention(*testing::named(p.stages[0], "L2.attn.core").at(0));
  EXPECT_EQ(a.heads, 8U);
  EXPECT_EQ(a.kv_heads, 2U);
  EXPECT_EQ(testing::matmul(*testing::named(p.stages[0], "L2.attn.qkv").at(0)).n, (8U + 4U) * 128U);
  // KV cache per chip: 16 sequences x 2049 keys x (K, V) x 2 KV heads x 128
  // x 4 layers x 2 bytes; the real model's share is 12 / 8 KV heads per chip.
  const uint64_t per_kv_head = 16ull * 2049 * 2 * 128 * 4 * 2;
  EXPECT_EQ(p.memory_per_chip.kv_cache_bytes, 2 * per_kv_head);
  EXPECT_GT(p.memory_per_chip.kv_cache_bytes, 12 * per_kv_head / 8);

  config::ServingSpec wide = padded;
  wide.model.heads = 64;
  wide.model.kv_heads = 16;
  wide.sharding.pad_heads = false;
  const Program w = lower(wide, mesh);
  EXPECT_EQ(shapes(p), shapes(w));
  EXPECT_DOUBLE_EQ(p.model_flops, model_flops(padded));
  EXPECT_LT(p.model_flops, w.model_flops);
}

// 2D splits heads over the second tensor axis only: 48 heads over y's 32
// chips pad to 64, d_model still splits over both.
TEST(PaddedHeads, TwoDPadsOverTheSecondTensorAxis) {
  const MeshAxes mesh = testing::mesh({{"x", 2}, {"y", 32}});
  const config::ServingSpec padded =
      testing::decode(palm_like(), 64, 1024, tensor({"x", "y"}, true));
  const Program p = lower(padded, mesh);
  const chip::Attention& a = testing::attention(*testing::named(p.stages[0], "L0.attn.core").at(0));
  EXPECT_EQ(a.heads, 2U);
  EXPECT_EQ(a.kv_heads, 1U);
  config::ServingSpec wide = padded;
  wide.model.heads = 64;
  wide.sharding.pad_heads = false;
  EXPECT_EQ(shapes(p), shapes(lower(wide, mesh)));
  EXPECT_DOUBLE_EQ(p.model_flops, model_flops(padded));
}

// KV by batch: attention runs every (padded) head of its sequences, and the
// all-to-alls carry the padded heads.
TEST(PaddedHeads, KvByBatchAttendsOverThePaddedHeads) {
  const MeshAxes mesh = testing::mesh({{"model", 64}});
  config::ServingSpec padded = testing::decode(palm_like(), 64, 1024, tensor({"model"}, true));
  padded.sharding.kv_layout = config::KvLayout::kByBatch;
  const Program p = lower(padded, mesh);
  const chip::Attention& a = testing::attention(*testing::named(p.stages[0], "L0.attn.core").at(0));
  EXPECT_EQ(a.heads, 64U);
  EXPECT_EQ(a.kv_heads, 8U);
  EXPECT_EQ(a.batch, 1U);
  EXPECT_EQ(testing::collective(*testing::named(p.stages[0], "L0.attn.to_heads").at(0)).bytes,
            64ull * 64 * 128 * 2);  // rows x H' x hd, bf16
}

// Padding that changes nothing (64 heads over 8 KV heads on 8 chips; and
// weight-gathered, which computes whole heads) lowers byte for byte as
// without the field.
TEST(PaddedHeads, NoOpPaddingIsByteIdentical) {
  const MeshAxes mesh = testing::mesh({{"x", 2}, {"y", 4}});
  for (const bool prefill : {false, true}) {
    for (config::ShardingSpec s : {tensor({"y"}, true), tensor({"x", "y"}, true)}) {
      s.data_axes =
          s.tensor_axes.size() == 1 ? std::vector<std::string>{"x"} : std::vector<std::string>{};
      config::ServingSpec on = prefill ? testing::prefill(testing::llama3_70b(), 8, 512, s)
                                       : testing::decode(testing::llama3_70b(), 8, 1024, s);
      config::ServingSpec off = on;
      off.sharding.pad_heads = false;
      EXPECT_EQ(testing::fingerprint(lower(on, mesh)), testing::fingerprint(lower(off, mesh)));
    }
  }
  config::ModelSpec m = palm_like();
  m.heads = 40;  // 40 heads would not split over 8 chips, but weight-gathered does not split them
  m.kv_heads = 8;
  config::ShardingSpec wg = tensor({"x", "y"}, true);
  wg.weight_gathered = true;
  config::ServingSpec on = testing::prefill(m, 8, 256, wg);
  config::ServingSpec off = on;
  off.sharding.pad_heads = false;
  EXPECT_EQ(testing::fingerprint(lower(on, mesh)), testing::fingerprint(lower(off, mesh)));
}

TEST(PaddedHeads, WithoutTheFieldTheShapeIsStillRejected) {
  const MeshAxes mesh = testing::mesh({{"model", 64}});
  EXPECT_THROW(lower(testing::decode(palm_like(), 16, 2048, tensor({"model"}, false)), mesh),
               ShapeError);
}

}  // namespace
}  // namespace podsim::workload
