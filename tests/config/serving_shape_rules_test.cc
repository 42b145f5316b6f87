// One test per shape rule of docs/inputs.md: everything a serving step's
// sharding splits must divide evenly over the chips that split it, or the
// workload is rejected with the numbers and the axes involved.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::valid_moe_workload;
using testing::valid_pipeline_workload;
using testing::valid_serving_workload;
using testing::workload_errors;

// The tensor axis "model" of the fixtures spans y and z: 8 chips.
constexpr const char* kTensor8 = "the 8 chips of tensor axes [model]";

podsim::Model& model(podsim::Workload& w) {
  return *w.mutable_model();
}
podsim::Scenario& scenario(podsim::Workload& w) {
  return *w.mutable_scenario();
}

TEST(ServingShapeRulesTest, HeadsDivideOverTheTensorAxes) {
  auto w = valid_serving_workload();
  model(w).set_heads(12);  // 3 groups over the 4 KV heads
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(
                  "model.heads", std::string("12 heads do not divide evenly over ") + kTensor8)));
}

// The error suggests sharding.pad_heads with what it would cost, and with
// the field the same shape loads (the lowering pads it).
TEST(ServingShapeRulesTest, HeadsThatDoNotDivideSuggestPadding) {
  auto w = valid_serving_workload();
  model(w).set_heads(12);  // over 4 KV heads: padded to 16, 4 per KV head instead of 3
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(
                  "model.heads", std::string("12 heads do not divide evenly over ") + kTensor8 +
                                     "; set sharding.pad_heads: true to pad to 16 heads (costs "
                                     "33% more attention work)")));
  w.mutable_sharding()->set_pad_heads(true);
  const WorkloadSpec spec = load_workload(w);
  EXPECT_EQ(spec.serving->model.heads, 12u);  // the spec keeps the real model
  EXPECT_TRUE(spec.serving->sharding.pad_heads);
}

TEST(ServingShapeRulesTest, KvHeadsThatDoNotFitSuggestPaddingBoth) {
  auto w = valid_serving_workload();
  model(w).set_heads(48);
  model(w).set_kv_heads(12);  // 48 heads split over 8; 12 KV heads neither split nor replicate
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic("model.kv_heads",
                               "12 KV heads do not divide evenly over " + std::string(kTensor8) +
                                   "; set sharding.pad_heads: true to pad to 64 heads "
                                   "over 16 KV heads (costs 33% more attention work)")));
  model(w).set_kv_heads(3);
  model(w).set_heads(6);  // 3 KV heads pad to 4 (each on 2 chips), 2 query heads each: 8
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.heads", "pad to 8 heads over 4 KV heads"),
                          IsDiagnostic("model.kv_heads",
                                       "needs 8 to be a multiple of 3; set sharding.pad_heads: "
                                       "true to pad to 8 heads over 4 KV heads (costs 33% more "
                                       "attention work)")));
  w.mutable_sharding()->set_pad_heads(true);
  EXPECT_EQ(load_workload(w).serving->model.kv_heads, 3u);
}

TEST(ServingShapeRulesTest, PaddingThatChangesNothingLoads) {
  auto w = valid_serving_workload();  // 16 heads over 4 KV heads split over 8 chips already
  w.mutable_sharding()->set_pad_heads(true);
  EXPECT_TRUE(load_workload(w).serving->sharding.pad_heads);
}

// A workload on a 6x8 torus with 2D tensor parallelism over its two axes,
// `first` then `second`, every width a multiple of the 48 chips.
struct TwoD {
  PodSpec pod;
  podsim::Workload workload;
};

TwoD two_d(const char* first, const char* second) {
  podsim::Topology topology = testing::valid_topology();
  topology.mutable_torus()->mutable_dims(0)->set_size(6);
  topology.mutable_torus()->mutable_dims(1)->set_size(8);
  topology.mutable_torus()->mutable_dims()->RemoveLast();
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(topology, &text));
  TwoD out{parse_topology_text(text, "6x8.textproto"), valid_serving_workload()};
  podsim::Workload& w = out.workload;
  w.mutable_mesh()->clear_axes();
  for (const char* name : {"x", "y"}) {
    podsim::MeshAxis& a = *w.mutable_mesh()->add_axes();
    a.set_name(name);
    a.add_dims(name);
  }
  w.mutable_sharding()->clear_data_axes();
  w.mutable_sharding()->clear_tensor_axes();
  w.mutable_sharding()->add_tensor_axes(first);
  w.mutable_sharding()->add_tensor_axes(second);
  model(w).set_heads(64);
  model(w).set_kv_heads(8);
  model(w).set_d_model(48 * 128);
  model(w).set_ffn_dim(48 * 512);
  model(w).set_vocab(48 * 1000);
  scenario(w).set_batch(48);
  return out;
}

TEST(ServingShapeRulesTest, TwoDSplitsHeadsOverTheSecondTensorAxis) {
  // d_model over the first axis, heads over the second: 64 heads over y's 8
  // chips load, over x's 6 they do not.
  TwoD ok = two_d("x", "y");
  EXPECT_EQ(load_workload(ok.workload, ok.pod).serving->sharding.tensor_axes,
            (std::vector<std::string>{"x", "y"}));
  TwoD bad = two_d("y", "x");
  EXPECT_THAT(workload_errors(bad.workload, bad.pod),
              ElementsAre(IsDiagnostic("model.heads",
                                       "64 heads do not divide evenly over the 6 chips of tensor "
                                       "axes [x] (2D weight-stationary splits heads over the "
                                       "tensor axes after the first)"),
                          IsDiagnostic("model.kv_heads",
                                       "8 KV heads do not divide evenly over "
                                       "the 6 chips of tensor axes [x]")));
  // Padding over the second axis: 8 KV heads pad to 12 (over 6), each with
  // its 8 query heads.
  EXPECT_THAT(workload_errors(bad.workload, bad.pod),
              Contains(IsDiagnostic("model.heads",
                                    "pad to 96 heads over 12 KV heads (costs 50% "
                                    "more attention work)")));
  bad.workload.mutable_sharding()->set_pad_heads(true);
  EXPECT_TRUE(load_workload(bad.workload, bad.pod).serving->sharding.pad_heads);
}

TEST(ServingShapeRulesTest, TwoDWidthsDivideOverEveryTensorChip) {
  TwoD w = two_d("x", "y");
  model(w.workload).set_d_model(8 * 128);  // a multiple of 8, not of 48
  EXPECT_THAT(workload_errors(w.workload, w.pod),
              ElementsAre(IsDiagnostic("model.d_model",
                                       "d_model 1024 does not divide evenly over "
                                       "the 48 chips of tensor axes [x, y]")));
}

TEST(ServingShapeRulesTest, TwoDBatchTooSmallForTheFirstAxisSplitsHeadsOverEveryAxis) {
  // 16 sequences do not divide over x's 6 chips, so attention splits heads
  // over all 48 tensor chips (Pope et al.'s batch-1 prefill layout): 64
  // heads do not, 96 do.
  TwoD w = two_d("x", "y");
  scenario(w.workload).set_batch(16);
  EXPECT_THAT(workload_errors(w.workload, w.pod),
              ElementsAre(IsDiagnostic("model.heads",
                                       "64 heads do not divide evenly over the 48 chips of tensor "
                                       "axes [x, y] (2D weight-stationary attention splits heads "
                                       "over every tensor axis when a batch's 16 sequences do not "
                                       "divide over the first; use a multiple of 6 sequences to "
                                       "split them over it instead)")));
  model(w.workload).set_heads(96);
  EXPECT_EQ(load_workload(w.workload, w.pod).serving->model.heads, 96u);
  scenario(w.workload).set_batch(1);
  EXPECT_EQ(load_workload(w.workload, w.pod).serving->scenario.batch, 1u);
  model(w.workload).set_heads(64);
  // By batch, the cache splits them over both axes.
  scenario(w.workload).set_batch(6);
  w.workload.mutable_sharding()->set_kv_layout(podsim::KV_BY_BATCH);
  EXPECT_THAT(workload_errors(w.workload, w.pod),
              ElementsAre(IsDiagnostic("scenario.batch",
                                       "over the 48 chips of tensor axes [x, y]: "
                                       "each batch's 6 sequences")));
  scenario(w.workload).set_batch(96);
  EXPECT_EQ(load_workload(w.workload, w.pod).serving->scenario.batch, 96u);
}

TEST(ServingShapeRulesTest, KvHeadsSplitOrReplicateEvenly) {
  auto w = valid_serving_workload();
  model(w).set_kv_heads(16);  // 2 per chip
  EXPECT_EQ(load_workload(w).serving->model.kv_heads, 16u);
  model(w).set_kv_heads(2);  // each held by 4 chips
  EXPECT_EQ(load_workload(w).serving->model.kv_heads, 2u);
  model(w).set_heads(48);
  model(w).set_kv_heads(12);
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic("model.kv_heads",
                               std::string("12 KV heads do not divide evenly over ") + kTensor8)));
  model(w).set_kv_heads(3);
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic(
          "model.kv_heads", std::string("3 KV heads cannot be replicated evenly over ") + kTensor8 +
                                ": with fewer KV heads than chips each KV head is "
                                "replicated, which needs 8 to be a multiple of 3")));
}

TEST(ServingShapeRulesTest, WidthsAndVocabularyDivideOverTheTensorAxes) {
  auto w = valid_serving_workload();
  model(w).set_d_model(1004);
  model(w).set_ffn_dim(4100);
  model(w).set_vocab(32001);
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic("model.d_model",
                               std::string("d_model 1004 does not divide evenly over ") + kTensor8),
                  IsDiagnostic("model.ffn_dim",
                               std::string("ffn_dim 4100 does not divide evenly over ") + kTensor8),
                  IsDiagnostic("model.vocab",
                               std::string("vocab 32001 does not divide evenly over ") + kTensor8 +
                                   " (the embedding and the LM head are split over them)")));
}

TEST(ServingShapeRulesTest, ExpertWidthDividesOverTheTensorAxes) {
  auto w = valid_moe_workload();
  model(w).mutable_moe()->set_expert_ffn_dim(2044);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.moe.expert_ffn_dim",
                                       "expert_ffn_dim 2044 does not divide evenly over")));
}

TEST(ServingShapeRulesTest, ExpertsDivideOverTheExpertAxes) {
  auto w = valid_moe_workload();
  model(w).mutable_moe()->set_experts(6);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("model.moe.experts",
                                                           "6 experts do not divide evenly over "
                                                           "the 4 chips of expert axes [data]")));
  model(w).mutable_moe()->set_experts(12);  // 3 per chip
  EXPECT_EQ(load_workload(w).serving->model.moe->experts, 12u);
}

TEST(ServingShapeRulesTest, LayersDivideOverThePipelineStages) {
  auto w = valid_pipeline_workload();
  model(w).set_layers(8);  // 2 per stage
  EXPECT_EQ(load_workload(w).serving->model.layers, 8u);
  model(w).set_layers(6);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.layers",
                                       "6 layers do not divide evenly over the 4 "
                                       "stages of pipeline axis \"stage\"")));
}

TEST(ServingShapeRulesTest, BatchDividesOverTheReplicas) {
  auto w = valid_serving_workload();
  scenario(w).set_batch(18);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("scenario.batch",
                                                           "18 sequences do not divide evenly over "
                                                           "the 4 replicas of data axes [data]")));
}

TEST(ServingShapeRulesTest, MicroBatchesSplitEachReplicaEvenly) {
  auto w = valid_pipeline_workload();  // batch 8, no replicas
  scenario(w).set_micro_batches(8);    // one sequence each
  EXPECT_EQ(load_workload(w).serving->scenario.micro_batches, 8u);
  scenario(w).set_micro_batches(3);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("scenario.micro_batches",
                                                           "the 8 sequences of the batch do "
                                                           "not split into 3 equal "
                                                           "micro-batches")));
  scenario(w).set_micro_batches(16);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.micro_batches",
                                       "must be <= the 8 sequences of the batch, got 16")));
}

TEST(ServingShapeRulesTest, KvCacheByBatchSplitsSequencesOverTheTensorAxes) {
  auto w = valid_serving_workload();  // 4 sequences per replica
  w.mutable_sharding()->set_kv_layout(podsim::KV_BY_BATCH);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(
                  "scenario.batch",
                  std::string("sharding.kv_layout KV_BY_BATCH splits the KV cache by sequence "
                              "over ") +
                      kTensor8 +
                      ": each replica's 4 sequences do not divide evenly (use a multiple of 8 "
                      "sequences per replica)")));
  scenario(w).set_batch(32);  // 8 per replica: one per tensor chip
  EXPECT_EQ(load_workload(w).serving->sharding.kv_layout, KvLayout::kByBatch);
}

TEST(ServingShapeRulesTest, BatchShardedLayoutsCountPerMicroBatch) {
  auto w = valid_pipeline_workload();  // batch 8 in 2 micro-batches of 4
  w.mutable_sharding()->set_weight_gathered(true);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.batch",
                                       "weight-gathered layouts split the activations by "
                                       "sequence over the 8 chips of weight-gathered axes "
                                       "[model]: each micro-batch's 4 sequences do not divide "
                                       "evenly")));
  scenario(w).set_batch(16);
  EXPECT_TRUE(load_workload(w).serving->sharding.weight_gathered);
}

TEST(ServingShapeRulesTest, WeightGatheredComputesWholeHeadsAndWidths) {
  // Each chip runs whole layers on its own sequences: heads and FFN widths
  // need not divide; the stored weights still split d_model and vocab.
  auto w = valid_serving_workload();
  w.mutable_sharding()->set_weight_gathered(true);
  scenario(w).set_batch(32);  // 8 per replica, one per tensor chip
  model(w).set_heads(12);
  model(w).set_kv_heads(3);
  model(w).set_ffn_dim(4100);
  EXPECT_EQ(load_workload(w).serving->model.heads, 12u);
  model(w).set_d_model(1004);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.d_model", "d_model 1004 does not divide evenly")));
}

TEST(ServingShapeRulesTest, ReduceScatterSplitsEachMicroBatchsTokens) {
  auto w = valid_serving_workload();  // decode: 4 tokens per replica
  w.mutable_sharding()->set_tensor_collective(podsim::TENSOR_REDUCE_SCATTER_ALL_GATHER);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.batch",
                                       std::string("TENSOR_REDUCE_SCATTER_ALL_GATHER splits each "
                                                   "replica's 4 tokens per chip over ") +
                                           kTensor8 + ", and they do not divide evenly")));
  // Prefill: 4 sequences x 6 tokens = 24 tokens, 3 per chip.
  scenario(w).set_phase(podsim::PREFILL);
  scenario(w).set_prompt_len(6);
  EXPECT_EQ(load_workload(w).serving->scenario.prompt_len, 6u);
}

TEST(ServingShapeRulesTest, ExpertAxesOutsideTheReplicasSplitTheirTokens) {
  // Experts over x with no replicas: the 4 chips along x hold the same
  // tokens and each routes a quarter of them.
  auto w = valid_moe_workload();
  w.mutable_sharding()->clear_data_axes();
  scenario(w).set_batch(18);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.batch",
                                       "each batch's 18 tokens per chip do not divide evenly over "
                                       "the 4 chips of expert axes [data]: along expert axes that "
                                       "are not data axes the chips hold the same tokens and "
                                       "split them for routing")));
  scenario(w).set_batch(20);
  EXPECT_EQ(load_workload(w).serving->scenario.batch, 20u);
}

TEST(ServingShapeRulesTest, ProblemsWithTheAxesSkipTheShapeRules) {
  // An unknown tensor axis is reported once, not again as every width that
  // cannot be checked against it.
  auto w = valid_serving_workload();
  w.mutable_sharding()->add_tensor_axes("nope");
  model(w).set_heads(12);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.tensor_axes[1]", "no mesh axis named \"nope\"")));
}

}  // namespace
}  // namespace podsim::config
