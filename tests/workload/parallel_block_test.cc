// Model.parallel_block (GPT-J, PaLM): attention and FFN side by side on one
// normed input, so 1D tensor parallelism reduces once per layer instead of
// twice; FLOPs, weights and the matmul work are those of the serial block.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

config::ShardingSpec tensor(std::vector<std::string> axes, bool reduce_scatter = false) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  if (reduce_scatter)
    s.tensor_collective = config::TensorCollective::kReduceScatterAllGather;
  return s;
}

struct LayerTraffic {
  size_t collectives = 0;
  uint64_t bytes = 0;
  double matmul_flops = 0;
};

// Collectives, their bytes, and matmul FLOPs of layer 3.
LayerTraffic layer_traffic(const Program& p) {
  LayerTraffic t;
  for (const Instruction& ins : p.stages[0].instructions) {
    if (ins.layer != 3)
      continue;
    if (const auto* c = std::get_if<config::CollectiveSpec>(&ins.body)) {
      ++t.collectives;
      t.bytes += c->bytes;
    } else if (const auto* op = std::get_if<chip::Op>(&ins.body)) {
      if (const auto* mm = std::get_if<chip::Matmul>(op))
        t.matmul_flops += 2.0 * mm->batch * mm->m * mm->k * mm->n;
    }
  }
  return t;
}

class ParallelBlock : public ::testing::TestWithParam<bool> {};

TEST_P(ParallelBlock, OneReductionPerLayerAndTheSameWork) {
  const bool reduce_scatter = GetParam();
  for (const uint32_t batch : {8U, 64U}) {
    config::ServingSpec serial =
        testing::decode(testing::llama3_70b(), batch, 1024, tensor({"x"}, reduce_scatter));
    config::ServingSpec parallel = serial;
    parallel.model.parallel_block = true;
    const MeshAxes mesh = testing::mesh({{"x", 8}});
    const Program a = lower(serial, mesh);
    const Program b = lower(parallel, mesh);
    const LayerTraffic ta = layer_traffic(a);
    const LayerTraffic tb = layer_traffic(b);
    ASSERT_GT(ta.collectives, 0U);
    EXPECT_EQ(tb.collectives * 2, ta.collectives) << "batch " << batch;
    EXPECT_EQ(tb.bytes * 2, ta.bytes) << "batch " << batch;
    EXPECT_DOUBLE_EQ(tb.matmul_flops, ta.matmul_flops);
    EXPECT_DOUBLE_EQ(b.model_flops, a.model_flops);
    EXPECT_EQ(b.memory_per_chip.weight_bytes, a.memory_per_chip.weight_bytes);
    EXPECT_EQ(b.memory_per_chip.kv_cache_bytes, a.memory_per_chip.kv_cache_bytes);
    // Two fused projections per layer, no separate Q/K/V, output, up or down.
    EXPECT_EQ(testing::named(b.stages[0], "L3.block.in").size() +
                  testing::named(b.stages[0], "L3.block.out").size(),
              2U);
    EXPECT_TRUE(testing::named(b.stages[0], "L3.attn.qkv").empty());
    EXPECT_TRUE(testing::named(b.stages[0], "L3.ffn.down").empty());
  }
}

INSTANTIATE_TEST_SUITE_P(TensorCollective, ParallelBlock, ::testing::Values(false, true));

TEST(ParallelBlock2D, SameWorkFewerCollectives) {
  config::ServingSpec serial = testing::decode(testing::llama3_70b(), 64, 1024, tensor({"x", "y"}));
  config::ServingSpec parallel = serial;
  parallel.model.parallel_block = true;
  const MeshAxes mesh = testing::mesh({{"x", 2}, {"y", 4}});
  const LayerTraffic ta = layer_traffic(lower(serial, mesh));
  const LayerTraffic tb = layer_traffic(lower(parallel, mesh));
  EXPECT_LT(tb.collectives, ta.collectives);
  EXPECT_LT(tb.bytes, ta.bytes);
  EXPECT_DOUBLE_EQ(tb.matmul_flops, ta.matmul_flops);
}

}  // namespace
}  // namespace podsim::workload
