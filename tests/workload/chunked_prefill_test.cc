// A weight-gathered prefill in K sequential chunks (issue 28): the chunks run
// inside each layer, so each layer's weights are gathered once for all of
// them and the step moves the unchunked run's weight bytes; only
// scenario.regather_chunk_weights (chosen by the study layer when nothing
// else fits) gathers K times, for one chunk's residual stream live instead
// of K. Expectations by hand from LLaMA 3 8B's published shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "workload/program.h"
#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using testing::collective;
using testing::named;

constexpr uint64_t kD = 4096;
constexpr uint64_t kF = 14336;
// One layer's matrices in bf16: Q, K, V (32 + 2 x 8 heads of 128), the
// attention output, and the SwiGLU FFN's up, gate and down.
constexpr uint64_t kLayerWeightBytes = (kD * 48 * 128 + 32 * 128 * kD + 3 * kD * kF) * 2;

config::ShardingSpec gathered() {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  sh.weight_gathered = true;
  return sh;
}

Program chunked(uint32_t chunks, bool regather, config::ShardingSpec sh = gathered()) {
  config::ServingSpec s = testing::prefill(testing::llama3_8b(), 32, 512, std::move(sh));
  s.scenario.prefill_chunks = chunks;
  s.scenario.regather_chunk_weights = regather;
  return lower(s, testing::mesh({{"x", 4}}));
}

// The bytes (V) of every weight all-gather of the step.
uint64_t gathered_weight_bytes(const Program& p) {
  uint64_t total = 0;
  for (const Instruction* ins : named(p.stages[0], ".gather_weights"))
    total += collective(*ins).bytes;
  return total;
}

TEST(ChunkedPrefill, WeightGatheredChunksGatherEachLayerOnce) {
  const Program one = chunked(1, false);
  EXPECT_EQ(one.weight_gathers, 1u);
  EXPECT_EQ(gathered_weight_bytes(one), 32 * kLayerWeightBytes);
  for (const uint32_t k : {2u, 4u}) {
    const Program p = chunked(k, false);
    EXPECT_EQ(p.prefill_chunks, k);
    EXPECT_EQ(p.weight_gathers, 1u);
    EXPECT_EQ(gathered_weight_bytes(p), gathered_weight_bytes(one)) << k << " chunks";
    // Every chunk's blocks read layer 5's one gather of its QKV weights.
    const auto gathers = named(p.stages[0], "L5.attn.qkv.gather_weights");
    ASSERT_EQ(gathers.size(), 1u);
    const auto uses = named(p.stages[0], "L5.attn.qkv");
    ASSERT_EQ(uses.size(), k);
    const auto g = static_cast<uint32_t>(gathers[0] - p.stages[0].instructions.data());
    for (const Instruction* use : uses)
      EXPECT_NE(std::find(use->deps.begin(), use->deps.end(), g), use->deps.end());
    // Chunk after chunk inside each layer: layer 5's QKV for every chunk
    // comes before layer 6's for any.
    EXPECT_LT(uses.back(), named(p.stages[0], "L6.attn.qkv").front());
  }
}

TEST(ChunkedPrefill, RegatheringGathersPerChunkForOneChunksResidual) {
  const uint32_t k = 4;
  const Program once = chunked(k, false);
  const Program again = chunked(k, true);
  EXPECT_EQ(again.weight_gathers, k);
  EXPECT_EQ(gathered_weight_bytes(again), k * gathered_weight_bytes(once));
  // The same working set; K residual streams live between layers against one:
  // 32 sequences / 4 chunks / 4 chips x 512 tokens x d in bf16 per chunk.
  const uint64_t residual = 32 / k / 4 * 512 * kD * 2;
  EXPECT_EQ(
      once.memory_per_chip.activation_peak_bytes - again.memory_per_chip.activation_peak_bytes,
      (k - 1) * residual);
  EXPECT_EQ(once.memory_per_chip.weight_bytes, again.memory_per_chip.weight_bytes);
  EXPECT_EQ(once.memory_per_chip.kv_cache_bytes, again.memory_per_chip.kv_cache_bytes);
}

TEST(ChunkedPrefill, StationaryWeightsRunChunkAfterChunk) {
  config::ShardingSpec sh;
  sh.tensor_axes = {"x"};
  const Program p = chunked(2, false, sh);
  EXPECT_EQ(p.weight_gathers, 0u);
  // Chunk 0 reaches the LM head before chunk 1 starts its first layer.
  const auto heads = named(p.stages[0], "lm_head");
  const auto first = named(p.stages[0], "L0.attn.qkv");
  ASSERT_EQ(heads.size(), 2u);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_LT(heads[0], first[1]);
  // The flag changes nothing where nothing is gathered.
  EXPECT_EQ(testing::fingerprint(p), testing::fingerprint(chunked(2, true, sh)));
}

}  // namespace
}  // namespace podsim::workload
