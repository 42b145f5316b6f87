// One test per rule of docs/inputs.md about a serving step's sharding against
// the mesh and the pod: axes that exist, one role per axis (an expert axis may
// also be a data axis), every chip in the mesh, every mesh axis with a role,
// and no field that the rest of the sharding would ignore.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::test_pod;
using testing::valid_moe_workload;
using testing::valid_serving_workload;
using testing::workload_errors;

podsim::Sharding& sharding(podsim::Workload& w) {
  return *w.mutable_sharding();
}

// The mesh as axes over the given dimension lists, in order.
void set_mesh(podsim::Workload& w,
              std::initializer_list<std::pair<const char*, std::vector<const char*>>> axes) {
  w.mutable_mesh()->clear_axes();
  for (const auto& [name, dims] : axes) {
    podsim::MeshAxis& a = *w.mutable_mesh()->add_axes();
    a.set_name(name);
    for (const char* d : dims)
      a.add_dims(d);
  }
}

TEST(ServingShardingRulesTest, AxesMustExist) {
  auto w = valid_serving_workload();
  sharding(w).set_tensor_axes(0, "nope");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.tensor_axes[0]",
                                       "no mesh axis named \"nope\" (the mesh has data, model)"),
                          // and the axis meant is left without a role
                          IsDiagnostic("mesh.axes[1]", "axis \"model\" (8 chips) has no role")));
}

TEST(ServingShardingRulesTest, AxisListedTwice) {
  auto w = valid_serving_workload();
  sharding(w).add_data_axes("data");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.data_axes[1]", "axis \"data\" is listed twice")));
}

TEST(ServingShardingRulesTest, TwoTensorAxesMakeA2DLayout) {
  auto w = valid_serving_workload();
  w.mutable_model()->set_heads(32);  // divides over the 32 chips of [data, model]
  sharding(w).clear_data_axes();
  sharding(w).clear_tensor_axes();
  sharding(w).add_tensor_axes("data");
  sharding(w).add_tensor_axes("model");
  EXPECT_EQ(load_workload(w).serving->sharding.tensor_axes,
            (std::vector<std::string>{"data", "model"}));
}

TEST(ServingShardingRulesTest, ThreeTensorAxesAreTwoDOverTheFirstAndTheRest) {
  // Pope et al.'s 2D layout on a 3D slice: d_model over X, heads and FFN
  // widths over YZ.
  auto w = valid_serving_workload();
  set_mesh(w, {{"a", {"x"}}, {"b", {"y"}}, {"c", {"z"}}});
  sharding(w).clear_data_axes();
  sharding(w).clear_tensor_axes();
  for (const char* axis : {"a", "b", "c"})
    sharding(w).add_tensor_axes(axis);
  EXPECT_EQ(load_workload(w).serving->sharding.tensor_axes,
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ServingShardingRulesTest, WeightGatheredAxesAreTensorAxes) {
  auto w = valid_serving_workload();
  sharding(w).add_weight_gathered_axes("data");
  EXPECT_THAT(workload_errors(w),
              Contains(IsDiagnostic("sharding.weight_gathered_axes[0]", "\"data\"")));
  w = valid_serving_workload();
  sharding(w).add_weight_gathered_axes("model");
  sharding(w).add_weight_gathered_axes("model");
  EXPECT_THAT(workload_errors(w),
              Contains(IsDiagnostic("sharding.weight_gathered_axes[1]", "\"model\"")));
  w = valid_serving_workload();
  w.mutable_scenario()->set_batch(32);  // 8 per replica, one per gathered chip
  sharding(w).add_weight_gathered_axes("model");
  const auto loaded = load_workload(w).serving->sharding;
  EXPECT_TRUE(loaded.weight_gathered);
  EXPECT_EQ(loaded.weight_gathered_axes, (std::vector<std::string>{"model"}));
}

TEST(ServingShardingRulesTest, AnAxisHasOneRole) {
  auto w = valid_serving_workload();
  sharding(w).add_data_axes("model");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.data_axes[1]",
                                       "axis \"model\" is already a tensor axis "
                                       "(sharding.tensor_axes[0]); an axis has one role, except "
                                       "that an expert axis may also be a data axis")));
  w = valid_serving_workload();
  sharding(w).set_pipeline_axis("data");
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("sharding.pipeline_axis",
                                                           "axis \"data\" is already a "
                                                           "data axis "
                                                           "(sharding.data_axes[0])")));
}

TEST(ServingShardingRulesTest, ExpertAxesMayBeDataAxesButNotTensorAxes) {
  auto w = valid_moe_workload();  // experts over the data axis
  const WorkloadSpec spec = load_workload(w);
  EXPECT_EQ(spec.serving->sharding.expert_axes, spec.serving->sharding.data_axes);
  sharding(w).add_expert_axes("model");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.expert_axes[1]",
                                       "axis \"model\" is already a tensor axis")));
}

TEST(ServingShardingRulesTest, AnExpertAxisAloneIsARole) {
  // Experts over x with no replicas: the chips along x share the tokens and
  // hold different experts.
  auto w = valid_moe_workload();
  sharding(w).clear_data_axes();
  EXPECT_EQ(load_workload(w).serving->sharding.expert_axes, (std::vector<std::string>{"data"}));
}

TEST(ServingShardingRulesTest, EveryPodDimensionIsInTheMesh) {
  auto w = valid_serving_workload();
  set_mesh(w, {{"data", {"x"}}, {"model", {"y"}}});  // z (2 chips) left out
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("mesh",
                                       "a serving step runs on every chip of the pod, "
                                       "but dimension \"z\" (2) is in no mesh axis")));
  // The slices of a multi-slice pod too.
  EXPECT_THAT(workload_errors(valid_serving_workload(), test_pod(2)),
              ElementsAre(IsDiagnostic("mesh", "dimension \"slice\" (2) is in no mesh axis")));
}

TEST(ServingShardingRulesTest, EveryMeshAxisHasARole) {
  auto w = valid_serving_workload();
  set_mesh(w, {{"data", {"x"}}, {"model", {"y"}}, {"extra", {"z"}}});
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("mesh.axes[2]",
                                       "axis \"extra\" (2 chips) has no role in sharding "
                                       "(tensor_axes, expert_axes, data_axes or pipeline_axis): "
                                       "its chips would repeat the work of the others")));
  // An axis of one chip has nothing to repeat.
  w.mutable_sharding()->add_data_axes("extra");
  w.mutable_mesh()->add_axes()->set_name("one");
  w.mutable_mesh()->mutable_axes(3)->add_dims("slice");
  EXPECT_EQ(load_workload(w).mesh.size(), 4u);
}

TEST(ServingShardingRulesTest, TensorLayoutFieldsNeedTensorAxes) {
  auto w = valid_serving_workload();
  sharding(w).clear_tensor_axes();
  sharding(w).add_data_axes("model");
  w.mutable_scenario()->set_batch(32);  // one sequence per replica
  EXPECT_EQ(load_workload(w).serving->sharding.data_axes,
            (std::vector<std::string>{"data", "model"}));
  sharding(w).set_tensor_collective(podsim::TENSOR_REDUCE_SCATTER_ALL_GATHER);
  sharding(w).set_weight_gathered(true);
  sharding(w).set_kv_layout(podsim::KV_BY_BATCH);
  sharding(w).set_pad_heads(true);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.tensor_collective",
                                       "only tensor parallelism has tensor collectives; with no "
                                       "tensor_axes it would be ignored"),
                          IsDiagnostic("sharding.weight_gathered",
                                       "gathers each layer's weights over tensor_axes, and there "
                                       "are none"),
                          IsDiagnostic("sharding.kv_layout",
                                       "KV_BY_BATCH splits the cache over "
                                       "tensor_axes, and there are none"),
                          IsDiagnostic("sharding.pad_heads",
                                       "pads heads to split over tensor_axes, and there are "
                                       "none")));
}

TEST(ServingShardingRulesTest, ExpertAxesNeedExperts) {
  auto w = valid_serving_workload();
  sharding(w).add_expert_axes("data");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.expert_axes[0]",
                                       "the model has no experts (no model.moe): expert "
                                       "parallelism needs a mixture of experts")));
}

TEST(ServingShardingRulesTest, MicroBatchesNeedAPipeline) {
  auto w = valid_serving_workload();
  w.mutable_scenario()->set_micro_batches(1);  // 0 or 1: no micro-batching
  EXPECT_EQ(load_workload(w).serving->scenario.micro_batches, 1u);
  w.mutable_scenario()->set_micro_batches(2);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.micro_batches",
                                       "micro-batches feed pipeline stages: with no "
                                       "sharding.pipeline_axis, 2 would be ignored")));
}

TEST(ServingShardingRulesTest, EnumsMustBeKnown) {
  auto w = valid_serving_workload();
  sharding(w).set_tensor_collective(static_cast<podsim::TensorCollective>(5));
  sharding(w).set_kv_layout(static_cast<podsim::KvLayout>(9));
  sharding(w).set_collective_matmul(static_cast<podsim::CollectiveMatmul>(7));
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("sharding.tensor_collective",
                                       "unknown value 5: must be one of "
                                       "TENSOR_COLLECTIVE_UNSPECIFIED, TENSOR_ALL_REDUCE, "
                                       "TENSOR_REDUCE_SCATTER_ALL_GATHER"),
                          IsDiagnostic("sharding.kv_layout", "unknown value 9"),
                          IsDiagnostic("sharding.collective_matmul", "unknown value 7")));
}

TEST(ServingShardingRulesTest, CollectiveMatmulNeedsTensorAxes) {
  auto w = valid_serving_workload();
  sharding(w).set_collective_matmul(podsim::COLLECTIVE_MATMUL_AUTO);
  EXPECT_EQ(load_workload(w).serving->sharding.collective_matmul, CollectiveMatmul::kAuto);
  sharding(w).set_collective_matmul(podsim::COLLECTIVE_MATMUL_ON);
  EXPECT_EQ(load_workload(w).serving->sharding.collective_matmul, CollectiveMatmul::kOn);
  sharding(w).clear_tensor_axes();
  sharding(w).add_data_axes("model");
  EXPECT_THAT(workload_errors(w),
              Contains(IsDiagnostic("sharding.collective_matmul",
                                    "loops tensor-parallel collectives with their matmuls, "
                                    "and there are no tensor_axes")));
}

}  // namespace
}  // namespace podsim::config
