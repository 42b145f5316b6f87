// Shapes that do not divide evenly are errors naming the field to blame.
#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

void expect_shape_error(const config::ServingSpec& spec, const MeshAxes& mesh,
                        const std::string& field, const std::string& message_part) {
  try {
    lower(spec, mesh);
    ADD_FAILURE() << "expected a ShapeError on " << field;
  } catch (const ShapeError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
  }
}

config::ShardingSpec tensor_over(std::vector<std::string> axes) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  return s;
}

TEST(ShapeErrors, HeadsOverTensorAxis) {
  expect_shape_error(testing::decode(testing::llama3_70b(), 48, 10, tensor_over({"x"})),
                     testing::mesh({{"x", 48}}), "model.heads",
                     "64 heads do not divide evenly over the 48 chips of tensor axis x");
}

TEST(ShapeErrors, HeadsOverSecondAxisIn2D) {
  expect_shape_error(testing::decode(testing::llama3_70b(), 48, 10, tensor_over({"x", "y"})),
                     testing::mesh({{"x", 2}, {"y", 24}}), "model.heads",
                     "64 heads do not divide evenly over the 24 chips of tensor axis y");
}

TEST(ShapeErrors, KvHeadsNeitherSplitNorReplicate) {
  config::ModelSpec m = testing::llama3_8b();
  m.heads = 24;
  expect_shape_error(testing::decode(m, 12, 10, tensor_over({"x"})), testing::mesh({{"x", 12}}),
                     "model.kv_heads", "8 KV heads neither divide evenly over nor replicate");
}

TEST(ShapeErrors, LayersOverPipelineStages) {
  config::ShardingSpec sh;
  sh.pipeline_axis = std::string("p");
  expect_shape_error(testing::decode(testing::llama3_70b(), 8, 10, sh), testing::mesh({{"p", 3}}),
                     "model.layers", "80 layers do not divide evenly over the 3 stages");
}

TEST(ShapeErrors, BatchOverDataAxes) {
  config::ShardingSpec sh;
  sh.data_axes = {"d"};
  expect_shape_error(testing::decode(testing::llama3_8b(), 10, 10, sh), testing::mesh({{"d", 4}}),
                     "scenario.batch",
                     "10 sequences do not divide evenly over the 4 chips of data axis d");
}

TEST(ShapeErrors, MicroBatches) {
  config::ServingSpec s = testing::decode(testing::llama3_8b(), 8, 10);
  s.scenario.micro_batches = 3;
  expect_shape_error(s, testing::mesh({}), "scenario.micro_batches", "3 micro-batches");
}

TEST(ShapeErrors, FfnOverTensorAxis) {
  config::ModelSpec m = testing::llama3_8b();
  m.ffn_dim = 14000;
  expect_shape_error(testing::decode(m, 8, 10, tensor_over({"x"})), testing::mesh({{"x", 32}}),
                     "model.ffn_dim", "14000 FFN columns");
}

TEST(ShapeErrors, VocabOverTensorAxis) {
  config::ModelSpec m = testing::llama3_8b();
  m.vocab = 32000 + 4;
  expect_shape_error(testing::decode(m, 8, 10, tensor_over({"x"})), testing::mesh({{"x", 8}}),
                     "model.vocab", "32004 vocabulary entries");
}

TEST(ShapeErrors, ExpertsOverExpertAxes) {
  config::ShardingSpec sh;
  sh.data_axes = {"x"};
  sh.expert_axes = {"x"};
  expect_shape_error(testing::decode(testing::small_moe(), 48, 10, sh), testing::mesh({{"x", 3}}),
                     "model.moe.experts", "16 experts");
}

TEST(ShapeErrors, ReduceScatterNeedsTokensToSplit) {
  config::ShardingSpec sh = tensor_over({"x"});
  sh.tensor_collective = config::TensorCollective::kReduceScatterAllGather;
  expect_shape_error(testing::decode(testing::llama3_8b(), 4, 10, sh), testing::mesh({{"x", 8}}),
                     "scenario.batch", "4 tokens per micro-batch");
}

TEST(ShapeErrors, WeightGatheredNeedsSequencesToSplit) {
  config::ShardingSpec sh = tensor_over({"x"});
  sh.weight_gathered = true;
  expect_shape_error(testing::prefill(testing::llama3_8b(), 6, 128, sh), testing::mesh({{"x", 4}}),
                     "scenario.batch", "6 sequences per micro-batch");
}

TEST(ShapeErrors, AxisInTwoRoles) {
  config::ShardingSpec sh = tensor_over({"x"});
  sh.data_axes = {"x"};
  expect_shape_error(testing::decode(testing::llama3_8b(), 8, 10, sh), testing::mesh({{"x", 2}}),
                     "sharding.data_axes", "both a tensor and a data axis");
}

TEST(ShapeErrors, EmptyPrefillPrompt) {
  expect_shape_error(testing::prefill(testing::llama3_8b(), 8, 0), testing::mesh({}),
                     "scenario.prompt_len", "at least 1");
}

TEST(ShapeErrors, UnknownAxisIsOutOfRange) {
  EXPECT_THROW(lower(testing::decode(testing::llama3_8b(), 8, 10, tensor_over({"q"})),
                     testing::mesh({{"x", 2}})),
               std::out_of_range);
}

}  // namespace
}  // namespace podsim::workload
