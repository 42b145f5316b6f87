// One test per rule of docs/inputs.md about a serving step's model and
// scenario on their own: positive shapes, heads grouped over KV heads, the
// dense FFN width, mixtures of experts, dtypes, phases and token counts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::valid_moe_workload;
using testing::valid_serving_workload;
using testing::workload_errors;

podsim::Model& model(podsim::Workload& w) {
  return *w.mutable_model();
}
podsim::Moe& moe(podsim::Workload& w) {
  return *w.mutable_model()->mutable_moe();
}
podsim::Scenario& scenario(podsim::Workload& w) {
  return *w.mutable_scenario();
}

TEST(ServingModelRulesTest, NameMustNotBeEmpty) {
  auto w = valid_serving_workload();
  model(w).clear_name();
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("model.name", "must not be empty")));
}

TEST(ServingModelRulesTest, ShapesMustBePositive) {
  auto w = valid_serving_workload();
  model(w).set_layers(0);
  model(w).set_d_model(0);
  model(w).set_heads(0);
  model(w).set_kv_heads(0);
  model(w).set_head_dim(0);
  model(w).set_ffn_dim(0);
  model(w).set_vocab(0);
  // Each zero is reported once; the rules that divide by them are skipped.
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("model.layers", "must be >= 1, got 0"),
                                              IsDiagnostic("model.d_model", "must be >= 1, got 0"),
                                              IsDiagnostic("model.heads", "must be >= 1, got 0"),
                                              IsDiagnostic("model.kv_heads", "must be >= 1, got 0"),
                                              IsDiagnostic("model.head_dim", "must be >= 1, got 0"),
                                              IsDiagnostic("model.ffn_dim",
                                                           "must be >= 1: the model has dense FFN "
                                                           "layers, got 0"),
                                              IsDiagnostic("model.vocab", "must be >= 1, got 0")));
}

TEST(ServingModelRulesTest, ShapesHaveTypoGuards) {
  auto w = valid_serving_workload();
  model(w).set_d_model(uint64_t{1} << 25);
  model(w).set_layers(70'000);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.layers", "must be <= 65536, got 70000"),
                          IsDiagnostic("model.d_model", "must be <= 16777216, got 33554432")));
}

TEST(ServingModelRulesTest, LargeValuesPrintExactly) {
  // 2^64 - 1 went through a double and printed as 18446744073709551616.
  auto w = valid_serving_workload();
  model(w).set_d_model(UINT64_MAX);
  EXPECT_THAT(workload_errors(w),
              ::testing::Contains(
                  IsDiagnostic("model.d_model", "must be <= 16777216, got 18446744073709551615")));
}

TEST(ServingModelRulesTest, HeadsGroupEvenlyOverKvHeads) {
  auto w = valid_serving_workload();
  model(w).set_kv_heads(16);  // multi-head attention
  EXPECT_EQ(load_workload(w).serving->model.kv_heads, 16u);
  model(w).set_kv_heads(1);  // multi-query: one KV head, replicated over the 8 tensor chips
  EXPECT_EQ(load_workload(w).serving->model.kv_heads, 1u);
  model(w).set_kv_heads(6);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.kv_heads",
                                       "16 heads do not split into equal groups "
                                       "over 6 KV heads"),
                          // and 6 does not divide the 8 tensor chips either
                          IsDiagnostic("model.kv_heads", "cannot be replicated evenly")));
}

TEST(ServingModelRulesTest, DenseFfnWidthOnlyWhereThereAreDenseLayers) {
  auto w = valid_moe_workload();  // every layer MoE, ffn_dim 0
  EXPECT_EQ(load_workload(w).serving->model.ffn_dim, 0u);
  model(w).set_ffn_dim(4096);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.ffn_dim",
                                       "every layer is MoE (moe.first_dense_"
                                       "layers 0, moe.moe_layer_interval 1), so "
                                       "a dense FFN width would be unused")));
  // With a dense first layer the width is needed.
  moe(w).set_first_dense_layers(1);
  EXPECT_EQ(load_workload(w).serving->model.ffn_dim, 4096u);
  model(w).set_ffn_dim(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.ffn_dim", "the model has dense FFN layers")));
  // Likewise with MoE only in every second layer.
  moe(w).set_first_dense_layers(0);
  moe(w).set_moe_layer_interval(2);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.ffn_dim", "the model has dense FFN layers")));
}

TEST(ServingModelRulesTest, MoeNeedsExpertsToRouteTo) {
  auto w = valid_moe_workload();
  moe(w).set_experts(0);
  moe(w).set_expert_ffn_dim(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.moe.experts",
                                       "must be >= 1 when moe is given "
                                       "(leave moe out for a dense model)"),
                          IsDiagnostic("model.moe.expert_ffn_dim", "must be >= 1, got 0")));
}

TEST(ServingModelRulesTest, ExpertsPerTokenWithinTheExperts) {
  auto w = valid_moe_workload();
  moe(w).set_experts_per_token(8);  // all of them
  EXPECT_EQ(load_workload(w).serving->model.moe->experts_per_token, 8u);
  moe(w).set_experts_per_token(9);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("model.moe.experts_per_token",
                                                           "must be <= experts (8), got 9")));
  moe(w).set_experts_per_token(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.moe.experts_per_token", "must be >= 1")));
}

TEST(ServingModelRulesTest, ParallelBlockIsForDenseModels) {
  auto dense = valid_serving_workload();
  model(dense).set_parallel_block(true);
  EXPECT_TRUE(load_workload(dense).serving->model.parallel_block);
  auto w = valid_moe_workload();
  model(w).set_parallel_block(true);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.parallel_block",
                                       "a parallel attention+FFN block is for dense models")));
}

TEST(ServingModelRulesTest, FirstDenseLayersLeaveAMoeLayer) {
  auto w = valid_moe_workload();
  model(w).set_ffn_dim(4096);
  moe(w).set_first_dense_layers(3);  // layers 0-2 dense, 3 MoE
  const auto spec = load_workload(w);
  EXPECT_FALSE(spec.serving->model.is_moe_layer(2));
  EXPECT_TRUE(spec.serving->model.is_moe_layer(3));
  moe(w).set_first_dense_layers(4);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.moe.first_dense_layers",
                                       "must be < layers (4), got 4: with every layer dense "
                                       "first, no layer is MoE")));
}

TEST(ServingModelRulesTest, DtypesMustBeKnown) {
  auto w = valid_serving_workload();
  model(w).set_weight_dtype(podsim::INT4);
  model(w).set_kv_dtype(podsim::FP8);
  EXPECT_EQ(load_workload(w).serving->model.weight_dtype, DType::kInt4);
  model(w).set_weight_dtype(static_cast<podsim::DType>(9));
  model(w).set_activation_dtype(static_cast<podsim::DType>(-2));
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.weight_dtype",
                                       "unknown value 9: must be one of "
                                       "DTYPE_UNSPECIFIED, BF16, FP32, FP8, "
                                       "INT8, INT4"),
                          IsDiagnostic("model.activation_dtype", "unknown value -2")));
}

TEST(ServingModelRulesTest, PhaseMustBeSet) {
  auto w = valid_serving_workload();
  scenario(w).clear_phase();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.phase", "must be set: one of PREFILL, DECODE")));
  scenario(w).set_phase(static_cast<podsim::Phase>(7));
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("scenario.phase", "unknown value 7")));
}

TEST(ServingModelRulesTest, BatchIsAtLeastOne) {
  auto w = valid_serving_workload();
  scenario(w).set_batch(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.batch", "must be >= 1, got 0")));
}

TEST(ServingModelRulesTest, PrefillNeedsAPrompt) {
  auto w = valid_serving_workload();
  scenario(w).set_phase(podsim::PREFILL);
  scenario(w).set_context_len(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.prompt_len", "must be >= 1: PREFILL processes")));
  scenario(w).set_prompt_len(100);
  scenario(w).set_context_len(300);  // a chunk of a longer prompt: the cache holds the rest
  const auto spec = load_workload(w);
  EXPECT_EQ(spec.serving->scenario.prompt_len, 100u);
  EXPECT_EQ(spec.serving->scenario.context_len, 300u);
}

TEST(ServingModelRulesTest, DecodeReadsACacheAndHasNoPrompt) {
  auto w = valid_serving_workload();
  scenario(w).set_context_len(0);
  scenario(w).set_prompt_len(5);
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic("scenario.context_len", "must be >= 1: DECODE reads the KV cache"),
                  IsDiagnostic("scenario.prompt_len",
                               "only PREFILL processes a prompt; DECODE "
                               "would ignore it")));
}

// Batch and tokens are each within their limits; their product with the
// model's layers and cache width must stay within 64-bit byte counts
// (workload_fuzzer found batch = context_len = 2^24 on LLaMA-3-8B reaching
// chip::bytes_of's overflow: exit 3).
TEST(ServingModelRulesTest, TheWholeKvCacheStaysWithinByteCounts) {
  auto w = valid_serving_workload();
  scenario(w).set_phase(podsim::DECODE);
  scenario(w).set_prompt_len(0);
  scenario(w).set_context_len((1u << 24) - 1);  // 2^24 tokens in the cache
  const uint64_t per_token =
      uint64_t{model(w).layers()} * 2 * model(w).kv_heads() * model(w).head_dim();
  ASSERT_EQ((uint64_t{1} << 31) % per_token, 0u) << "the limit is not a whole batch";
  scenario(w).set_batch(static_cast<uint32_t>((uint64_t{1} << 31) / per_token));  // exactly 2^55
  EXPECT_EQ(load_workload(w).serving->scenario.context_len, (1u << 24) - 1);
  scenario(w).set_batch(scenario(w).batch() + 1);
  EXPECT_THAT(workload_errors(w),
              ::testing::Contains(IsDiagnostic("scenario.batch", "elements is past 2^55")));
}

TEST(ServingModelRulesTest, TokensPerSequenceHaveATypoGuard) {
  auto w = valid_serving_workload();
  scenario(w).set_phase(podsim::PREFILL);
  scenario(w).set_prompt_len(1u << 23);
  scenario(w).set_context_len(1u << 23);  // exactly 2^24 in all: allowed
  EXPECT_EQ(load_workload(w).serving->scenario.context_len, 1u << 23);
  scenario(w).set_context_len((1u << 23) + 1);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.context_len",
                                       "prompt_len + context_len must be <= 16777216 tokens per "
                                       "sequence, got 16777217")));
}

}  // namespace
}  // namespace podsim::config
