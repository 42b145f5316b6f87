// Per-chip HBM: KV cache, weights and peak activations, by hand.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

// KV bytes per token of context = 2 (K and V) x KV heads x head_dim x layers
// x bytes per element; the chips together hold exactly that per token when
// no KV head is replicated.
TEST(Memory, KvCacheBytesPerTokenOverAllChips) {
  const config::ModelSpec m = testing::llama3_70b();  // 8 KV heads of 128, 80 layers
  const uint64_t per_token = 2ull * 8 * 128 * 80 * 2;
  const uint32_t batch = 32;
  const uint64_t kv_len = 1024;  // 1023 cached + the new token
  struct Case {
    const char* what;
    config::ShardingSpec sharding;
    MeshAxes mesh;
    uint64_t chips;
  };
  config::ShardingSpec by_heads;
  by_heads.tensor_axes = {"x"};
  by_heads.data_axes = {"d"};
  config::ShardingSpec by_batch = by_heads;
  by_batch.kv_layout = config::KvLayout::kByBatch;
  config::ShardingSpec piped = by_heads;
  piped.pipeline_axis = std::string("p");
  const Case cases[] = {
      {"by heads", by_heads, testing::mesh({{"x", 8}, {"d", 2}}), 16},
      {"by batch", by_batch, testing::mesh({{"x", 16}, {"d", 2}}), 32},
      {"pipelined", piped, testing::mesh({{"x", 8}, {"d", 2}, {"p", 4}}), 64},
  };
  for (const Case& c : cases) {
    const Program p = lower(testing::decode(m, batch, kv_len - 1, c.sharding), c.mesh);
    EXPECT_EQ(p.memory_per_chip.kv_cache_bytes * c.chips, per_token * batch * kv_len) << c.what;
  }
  // An int8 cache takes half.
  config::ModelSpec int8 = m;
  int8.kv_dtype = config::DType::kInt8;
  const Program p = lower(testing::decode(int8, batch, kv_len - 1, by_heads),
                          testing::mesh({{"x", 8}, {"d", 2}}));
  EXPECT_EQ(p.memory_per_chip.kv_cache_bytes * 16, per_token / 2 * batch * kv_len);
}

// Replicated KV heads (8 over 16 chips) store each head twice.
TEST(Memory, ReplicatedKvHeadsAreStoredOnEveryChipThatNeedsThem) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  const Program p =
      lower(testing::decode(testing::llama3_70b(), 4, 99, sh), testing::mesh({{"x", 16}}));
  EXPECT_EQ(p.memory_per_chip.kv_cache_bytes, 4ull * 100 * 2 * 1 * 128 * 80 * 2);
}

// 1D: every matrix split 4 ways, norms replicated; the embedding table split
// by columns and the LM head by vocabulary.
TEST(Memory, WeightsPerChipIn1D) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  const uint64_t d = 4096;
  const uint64_t f = 14336;
  const uint64_t v = 128256;
  const uint64_t layer = d * 32 * 128 + 2 * d * 8 * 128 + 32 * 128 * d + 3 * d * f;
  const uint64_t elements = (2 * v * d + 32 * layer) / 4 + 32 * 2 * d + d;
  config::ServingSpec spec = testing::decode(testing::llama3_8b(), 8, 100, sh);
  const MeshAxes m = testing::mesh({{"x", 4}});
  EXPECT_EQ(lower(spec, m).memory_per_chip.weight_bytes, elements * 2);
  spec.model.tied_embeddings = true;
  EXPECT_EQ(lower(spec, m).memory_per_chip.weight_bytes, (elements - v * d / 4) * 2);
  spec.model.weight_dtype = config::DType::kInt8;
  EXPECT_EQ(lower(spec, m).memory_per_chip.weight_bytes, elements - v * d / 4);
}

// Pipeline stages hold their layers; the first the embedding, the last the
// LM head; the footprint reported is the largest stage's.
TEST(Memory, PipelineStagesHoldTheirLayers) {
  config::ShardingSpec sh;
  sh.pipeline_axis = std::string("p");
  const uint64_t d = 4096;
  const uint64_t layer = d * 32 * 128 + 2 * d * 8 * 128 + 32 * 128 * d + 3 * d * 14336 + 2 * d;
  const Program p =
      lower(testing::decode(testing::llama3_8b(), 8, 100, sh), testing::mesh({{"p", 4}}));
  // Stage 3 has the LM head and the final norm, one element more than stage 0.
  EXPECT_EQ(p.memory_per_chip.weight_bytes, (8 * layer + 128256 * d + d) * 2);
}

// Peak activations: the residual stream (16 tokens x 4096 x 2 bytes) plus
// the largest op's inputs and outputs, here the LM head: 16 x (4096 +
// 128256 / 8) x 2 bytes.
TEST(Memory, PeakActivationsAreTheResidualPlusTheLargestOp) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  const Program p =
      lower(testing::decode(testing::llama3_8b(), 16, 100, sh), testing::mesh({{"x", 8}}));
  EXPECT_EQ(p.memory_per_chip.activation_peak_bytes,
            16ull * 4096 * 2 + 16ull * (4096 + 128256 / 8) * 2);
  EXPECT_EQ(p.memory_per_chip.total(), p.memory_per_chip.weight_bytes +
                                           p.memory_per_chip.kv_cache_bytes +
                                           p.memory_per_chip.activation_peak_bytes);
}

}  // namespace
}  // namespace podsim::workload
