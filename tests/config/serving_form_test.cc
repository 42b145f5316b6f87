// The second workload form, a serving step: exactly one form per workload,
// the conversion into ServingSpec (defaults resolved, every field carried),
// text and binary giving equal specs, and diagnostics located in the text.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::test_pod;
using testing::valid_moe_workload;
using testing::valid_pipeline_workload;
using testing::valid_serving_workload;
using testing::valid_workload;
using testing::workload_errors;

TEST(ServingFormTest, ValidServingStepConvertsWithDefaults) {
  const WorkloadSpec spec = load_workload(valid_serving_workload());
  EXPECT_EQ(spec.name, "serving");
  EXPECT_TRUE(spec.operations.empty());
  EXPECT_EQ(spec.mesh, (std::vector<MeshAxisDecl>{{"data", {0}}, {"model", {1, 2}}}));
  ASSERT_TRUE(spec.serving.has_value());

  ModelSpec model;
  model.name = "tiny";
  model.layers = 4;
  model.d_model = 1024;
  model.heads = 16;
  model.kv_heads = 4;
  model.head_dim = 64;
  model.ffn_dim = 4096;
  model.gated_ffn = true;
  model.vocab = 32000;
  model.tied_embeddings = false;
  model.moe = std::nullopt;
  model.weight_dtype = DType::kBf16;  // unset means bf16
  model.activation_dtype = DType::kBf16;
  model.kv_dtype = DType::kBf16;
  EXPECT_EQ(spec.serving->model, model);

  ScenarioSpec scenario;
  scenario.phase = Phase::kDecode;
  scenario.batch = 16;
  scenario.prompt_len = 0;
  scenario.context_len = 1024;
  scenario.micro_batches = 1;  // unset means 1
  EXPECT_EQ(spec.serving->scenario, scenario);

  ShardingSpec sharding;
  sharding.tensor_axes = {"model"};
  sharding.tensor_collective = TensorCollective::kAllReduce;  // unset
  sharding.weight_gathered = false;
  sharding.kv_layout = KvLayout::kByHeads;  // unset
  sharding.data_axes = {"data"};
  sharding.overlap_collectives = true;  // unset means true
  EXPECT_EQ(spec.serving->sharding, sharding);
}

TEST(ServingFormTest, EveryFieldIsCarriedOver) {
  auto w = valid_moe_workload();
  podsim::Model& m = *w.mutable_model();
  m.set_gated_ffn(false);
  m.set_tied_embeddings(true);
  m.set_ffn_dim(3072);
  m.mutable_moe()->set_shared_experts(1);
  m.mutable_moe()->set_first_dense_layers(1);
  m.mutable_moe()->set_moe_layer_interval(2);
  m.set_weight_dtype(podsim::INT8);
  m.set_activation_dtype(podsim::FP8);
  m.set_kv_dtype(podsim::INT4);
  podsim::Sharding& s = *w.mutable_sharding();
  s.set_tensor_collective(podsim::TENSOR_REDUCE_SCATTER_ALL_GATHER);
  s.set_weight_gathered(true);
  s.set_kv_layout(podsim::KV_BY_BATCH);
  s.set_overlap_collectives(false);
  s.set_pad_heads(true);
  w.mutable_scenario()->set_batch(64);  // 16 per replica, a multiple of the 8 tensor chips

  const WorkloadSpec spec = load_workload(w);
  ASSERT_TRUE(spec.serving.has_value());
  const ModelSpec& model = spec.serving->model;
  EXPECT_FALSE(model.gated_ffn);
  EXPECT_TRUE(model.tied_embeddings);
  EXPECT_EQ(model.ffn_dim, 3072u);
  EXPECT_EQ(model.moe, (MoeSpec{8, 2, 1, 2048, 1, 2}));
  EXPECT_EQ(model.weight_dtype, DType::kInt8);
  EXPECT_EQ(model.activation_dtype, DType::kFp8);
  EXPECT_EQ(model.kv_dtype, DType::kInt4);
  // Layer 0 dense, then every second layer MoE: 1 and 3.
  EXPECT_FALSE(model.is_moe_layer(0));
  EXPECT_TRUE(model.is_moe_layer(1));
  EXPECT_FALSE(model.is_moe_layer(2));
  EXPECT_TRUE(model.is_moe_layer(3));
  const ShardingSpec& sharding = spec.serving->sharding;
  EXPECT_EQ(sharding.tensor_collective, TensorCollective::kReduceScatterAllGather);
  EXPECT_TRUE(sharding.weight_gathered);
  EXPECT_EQ(sharding.kv_layout, KvLayout::kByBatch);
  EXPECT_EQ(sharding.expert_axes, (std::vector<std::string>{"data"}));
  EXPECT_EQ(sharding.data_axes, (std::vector<std::string>{"data"}));
  EXPECT_FALSE(sharding.overlap_collectives);
  EXPECT_TRUE(sharding.pad_heads);
  EXPECT_EQ(spec.serving->scenario.batch, 64u);
}

TEST(ServingFormTest, MoeIntervalZeroMeansEveryLayer) {
  const WorkloadSpec spec = load_workload(valid_moe_workload());
  ASSERT_TRUE(spec.serving->model.moe.has_value());
  EXPECT_EQ(spec.serving->model.moe->moe_layer_interval, 1u);
  for (uint32_t layer = 0; layer < 4; ++layer)
    EXPECT_TRUE(spec.serving->model.is_moe_layer(layer)) << layer;
}

TEST(ServingFormTest, PipelinedPrefillConverts) {
  const WorkloadSpec spec = load_workload(valid_pipeline_workload());
  EXPECT_EQ(spec.serving->scenario.phase, Phase::kPrefill);
  EXPECT_EQ(spec.serving->scenario.prompt_len, 512u);
  EXPECT_EQ(spec.serving->scenario.micro_batches, 2u);
  EXPECT_EQ(spec.serving->sharding.pipeline_axis, "stage");
  EXPECT_TRUE(spec.serving->sharding.data_axes.empty());
}

TEST(ServingFormTest, OperationsAndAServingStepAreNotBoth) {
  auto w = valid_workload();
  *w.mutable_model() = valid_serving_workload().model();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations",
                                       "either a list of operations or a serving "
                                       "step (model + scenario + sharding), not "
                                       "both; this one also has model"),
                          IsDiagnostic("scenario",
                                       "missing: a serving step needs model, "
                                       "scenario and sharding together (this "
                                       "workload has model)"),
                          IsDiagnostic("sharding", "missing")));
}

TEST(ServingFormTest, NeitherFormIsAnError) {
  auto w = valid_workload();
  w.clear_operations();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations",
                                       "must list at least one operation, or give "
                                       "model, scenario and sharding")));
}

TEST(ServingFormTest, EachMissingPartIsNamed) {
  auto w = valid_serving_workload();
  w.clear_sharding();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding", "(this workload has model, scenario)")));
  w = valid_serving_workload();
  w.clear_model();
  w.clear_scenario();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model", "(this workload has sharding)"),
                          IsDiagnostic("scenario", "(this workload has sharding)")));
}

TEST(ServingFormTest, AnEmptyPartCountsAsGiven) {
  // "sharding {}" is a sharding with no parallelism: valid on a pod of one chip.
  podsim::Topology one_chip = testing::valid_topology();
  one_chip.mutable_torus()->clear_dims();
  one_chip.mutable_torus()->add_dims()->set_size(1);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(one_chip, &text));
  const PodSpec pod = parse_topology_text(text, "one.textproto");
  auto w = valid_serving_workload();
  w.mutable_mesh()->clear_axes();
  podsim::MeshAxis& axis = *w.mutable_mesh()->add_axes();
  axis.set_name("x");
  axis.add_dims("x");
  w.mutable_sharding()->Clear();
  const WorkloadSpec spec = load_workload(w, pod);
  EXPECT_TRUE(spec.serving->sharding.tensor_axes.empty());
  EXPECT_TRUE(spec.serving->sharding.data_axes.empty());
}

TEST(ServingFormTest, TextAndBinaryGiveEqualSpecs) {
  const auto w = valid_moe_workload();
  std::string bytes;
  ASSERT_TRUE(w.SerializeToString(&bytes));
  WorkloadSpec binary = parse_workload_binary(bytes, "test.textproto", test_pod());
  WorkloadSpec text = load_workload(w);
  EXPECT_NE(binary.source_sha256, text.source_sha256);  // of different bytes
  binary.source_sha256 = text.source_sha256;
  EXPECT_EQ(binary, text);
}

TEST(ServingFormTest, DiagnosticsHaveLineAndColumn) {
  const std::string text =
      "name: \"w\"\n"                                                        // 1
      "mesh { axes { name: \"t\" dims: [\"x\", \"y\", \"z\"] } }\n"          // 2
      "model { name: \"m\" layers: 2 d_model: 1024 heads: 12 kv_heads: 4\n"  // 3
      "        head_dim: 64 ffn_dim: 4096 vocab: 32000 }\n"                  // 4
      "scenario { phase: DECODE batch: 8 context_len: 16 }\n"                // 5
      "sharding {\n"                                                         // 6
      "  tensor_axes: \"t\"\n"                                               // 7
      "  data_axes: [\"t\", \"u\"]\n"                                        // 8
      "}\n";
  const auto errors = workload_errors(text);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], IsDiagnostic("sharding.data_axes[0]",
                                      "is already a tensor axis "
                                      "(sharding.tensor_axes[0])"));
  EXPECT_EQ(errors[0].line, 8);
  EXPECT_EQ(errors[0].column, 15);
  EXPECT_THAT(errors[1], IsDiagnostic("sharding.data_axes[1]", "no mesh axis named \"u\""));
  EXPECT_EQ(errors[1].line, 8);
  EXPECT_EQ(errors[1].column, 20);
  EXPECT_EQ(errors[2].to_string(),
            "test.textproto:3:43: model.heads: 12 heads do not divide evenly over the 32 chips "
            "of tensor axes [t]; set sharding.pad_heads: true to pad to 32 heads (costs 167% "
            "more attention work)");
}

}  // namespace
}  // namespace podsim::config
