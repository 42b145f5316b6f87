// docs/inputs.md, "MultiHeadLatentAttention": model.mla's fields, the model
// fields it replaces (kv_heads, head_dim), parallel_block, and the sharding
// rules of its lowering (1D only; prefill keeps the latent by heads).
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
using testing::valid_serving_workload;
using testing::workload_errors;

// valid_serving_workload() with DeepSeek-V3's latent attention shapes.
podsim::Workload mla_workload() {
  podsim::Workload w = valid_serving_workload();
  podsim::Model& m = *w.mutable_model();
  m.clear_kv_heads();
  m.clear_head_dim();
  podsim::MultiHeadLatentAttention& a = *m.mutable_mla();
  a.set_kv_lora_rank(512);
  a.set_q_lora_rank(1536);
  a.set_qk_nope_head_dim(128);
  a.set_qk_rope_head_dim(64);
  a.set_v_head_dim(128);
  // 32 sequences per replica: they split over the 8 tensor chips (KV by
  // batch, weight-gathered) as the rules below need.
  w.mutable_scenario()->set_batch(128);
  return w;
}

TEST(MlaRulesTest, LoadsIntoTheModelSpec) {
  const ModelSpec m = load_workload(mla_workload()).serving->model;
  ASSERT_TRUE(m.mla.has_value());
  EXPECT_EQ(*m.mla, (MlaSpec{512, 1536, 128, 64, 128}));
  // Every head has its own (materialised) K and V of width nope + rope.
  EXPECT_EQ(m.kv_heads, m.heads);
  EXPECT_EQ(m.head_dim, 192u);
  EXPECT_EQ(m.kv_cache_width(), 576u);
  EXPECT_FALSE(load_workload(valid_serving_workload()).serving->model.mla.has_value());
}

TEST(MlaRulesTest, EveryWidthMustBePositive) {
  auto w = mla_workload();
  w.mutable_model()->mutable_mla()->Clear();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.mla.kv_lora_rank", "must be >= 1, got 0"),
                          IsDiagnostic("model.mla.q_lora_rank", "must be >= 1, got 0"),
                          IsDiagnostic("model.mla.qk_nope_head_dim", "must be >= 1, got 0"),
                          IsDiagnostic("model.mla.qk_rope_head_dim", "must be >= 1, got 0"),
                          IsDiagnostic("model.mla.v_head_dim", "must be >= 1, got 0")));
}

TEST(MlaRulesTest, KvHeadsAndHeadDimMustBeLeftZero) {
  auto w = mla_workload();
  w.mutable_model()->set_kv_heads(16);
  w.mutable_model()->set_head_dim(128);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.kv_heads",
                                       "with mla there are no KV heads to give: every head's keys "
                                       "and values come from one shared latent "
                                       "(mla.kv_lora_rank); leave kv_heads 0, got 16"),
                          IsDiagnostic("model.head_dim",
                                       "with mla the head shapes are mla.qk_nope_head_dim, "
                                       "mla.qk_rope_head_dim and mla.v_head_dim; leave head_dim "
                                       "0, got 128")));
}

TEST(MlaRulesTest, NotWithAParallelBlock) {
  auto w = mla_workload();
  w.mutable_model()->set_parallel_block(true);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.parallel_block",
                                       "a parallel attention+FFN block fuses the Q/K/V projection, "
                                       "which mla does not have")));
}

TEST(MlaRulesTest, OneTensorAxisAtMostAndNotWeightGathered) {
  auto gathered = mla_workload();
  gathered.mutable_sharding()->set_weight_gathered(true);
  EXPECT_THAT(workload_errors(gathered),
              ElementsAre(IsDiagnostic("sharding.weight_gathered",
                                       "model.mla is lowered for weight-stationary tensor "
                                       "parallelism only; drop weight_gathered")));
  auto two_d = mla_workload();
  two_d.mutable_sharding()->clear_data_axes();
  two_d.mutable_sharding()->add_tensor_axes("data");
  EXPECT_THAT(workload_errors(two_d),
              ElementsAre(IsDiagnostic("sharding.tensor_axes",
                                       "model.mla is lowered for one tensor axis (1D) or none, "
                                       "got 2")));
}

TEST(MlaRulesTest, PrefillKeepsTheLatentByHeads) {
  auto w = mla_workload();
  podsim::Scenario& s = *w.mutable_scenario();
  s.set_phase(podsim::PREFILL);
  s.set_prompt_len(512);
  s.set_context_len(0);
  w.mutable_sharding()->set_kv_layout(podsim::KV_BY_BATCH);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.kv_layout",
                                       "a model.mla prefill materialises each head's keys and "
                                       "values from the latent cache every tensor chip holds")));
  // Its decode may split the latent by sequence.
  auto decode = mla_workload();
  decode.mutable_sharding()->set_kv_layout(podsim::KV_BY_BATCH);
  EXPECT_TRUE(load_workload(decode).serving.has_value());
}

}  // namespace
}  // namespace podsim::config
