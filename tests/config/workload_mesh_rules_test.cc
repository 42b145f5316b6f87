// One test per workload rule of docs/inputs.md about the workload itself and
// its mesh: name, axes, dimension names, "slice", shared dimensions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::test_pod;
using testing::valid_workload;
using testing::workload_errors;

podsim::MeshAxis& axis(podsim::Workload& w, int i) {
  return *w.mutable_mesh()->mutable_axes(i);
}

// A workload whose mesh is the one axis "a" over `dims`, with one all-reduce
// over it whose 4096 bytes divide over any group of this pod (at most 64 chips).
podsim::Workload one_axis_workload(std::initializer_list<const char*> dims) {
  podsim::Workload w = valid_workload();
  w.mutable_mesh()->clear_axes();
  podsim::MeshAxis& a = *w.mutable_mesh()->add_axes();
  a.set_name("a");
  for (const char* d : dims)
    a.add_dims(d);
  w.mutable_operations()->RemoveLast();
  auto& c = testing::collective(w, 0);
  c.clear_axes();
  c.add_axes("a");
  c.set_bytes(4096);
  return w;
}

TEST(WorkloadMeshRulesTest, ValidWorkloadConverts) {
  const WorkloadSpec spec = load_workload(valid_workload());
  EXPECT_EQ(spec.name, "test-workload");
  EXPECT_EQ(spec.source_file, "test.textproto");
  ASSERT_EQ(spec.mesh.size(), 2u);
  EXPECT_EQ(spec.mesh[0], (MeshAxisDecl{"data", {0}}));
  EXPECT_EQ(spec.mesh[1], (MeshAxisDecl{"model", {1, 2}}));
  ASSERT_EQ(spec.operations.size(), 2u);
  const OperationSpec& ar = spec.operations[0];
  EXPECT_EQ(ar.name, "ar");
  EXPECT_TRUE(ar.after.empty());
  EXPECT_EQ(ar.repeat, 1u);  // unset means once
  const auto& c0 = std::get<CollectiveSpec>(ar.op);
  EXPECT_EQ(c0.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(c0.bytes, 1024u);
  EXPECT_EQ(c0.axes, (std::vector<std::string>{"data", "model"}));
  EXPECT_EQ(c0.dtype, DType::kBf16);  // unset means bf16
  EXPECT_EQ(c0.algorithm, CollectiveAlgorithm::kAuto);
  const OperationSpec& ag = spec.operations[1];
  EXPECT_EQ(ag.after, (std::vector<size_t>{0}));
  const auto& c1 = std::get<CollectiveSpec>(ag.op);
  EXPECT_EQ(c1.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(c1.dtype, DType::kFp32);
}

TEST(WorkloadMeshRulesTest, NameMustNotBeEmpty) {
  auto w = valid_workload();
  w.clear_name();
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("name", "must not be empty")));
}

TEST(WorkloadMeshRulesTest, MeshNeedsAnAxis) {
  auto w = valid_workload();
  w.clear_mesh();
  // The collectives' axes are then unknown too, but that follows from the
  // missing mesh and is not repeated for every collective.
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("mesh.axes", "must list at least one axis")));
}

TEST(WorkloadMeshRulesTest, AxisNameMustNotBeEmpty) {
  auto w = valid_workload();
  axis(w, 1).clear_name();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("mesh.axes[1].name", "must not be empty"),
                          // The collectives name "model", which is now gone.
                          IsDiagnostic("operations[0].collective.axes[1]",
                                       "no mesh axis named \"model\" (the mesh has data)"),
                          IsDiagnostic("operations[1].collective.axes[0]", "no mesh axis")));
}

TEST(WorkloadMeshRulesTest, AxisNamesMustBeUnique) {
  auto w = valid_workload();
  axis(w, 1).set_name("data");
  const auto errors = workload_errors(w);
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors[0], IsDiagnostic("mesh.axes[1].name",
                                      "axis name \"data\" is already used by mesh.axes[0]"));
}

TEST(WorkloadMeshRulesTest, AxisNeedsADimension) {
  auto w = valid_workload();
  axis(w, 0).clear_dims();
  const auto errors = workload_errors(w);
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors[0], IsDiagnostic("mesh.axes[0].dims", "must list at least one dimension"));
}

TEST(WorkloadMeshRulesTest, UnknownDimensionNamesTheTopologysDimensions) {
  auto w = valid_workload();
  axis(w, 1).set_dims(1, "w");
  const auto errors = workload_errors(w);
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors[0],
              IsDiagnostic("mesh.axes[1].dims[1]",
                           "unknown dimension \"w\": the topology 'test-pod' has dimensions x, y, "
                           "z, and \"slice\" for its 1 slice"));
}

TEST(WorkloadMeshRulesTest, SliceResolvesToTheSliceIndex) {
  const WorkloadSpec spec = load_workload(one_axis_workload({"slice"}), test_pod(2));
  ASSERT_EQ(spec.mesh.size(), 1u);
  EXPECT_EQ(spec.mesh[0], (MeshAxisDecl{"a", {kSliceDimIndex}}));
}

TEST(WorkloadMeshRulesTest, SliceIsAllowedOnASingleSlicePod) {
  // An axis of size 1: a collective over it involves one chip per group.
  const WorkloadSpec spec = load_workload(one_axis_workload({"slice"}), test_pod(1));
  EXPECT_EQ(spec.mesh[0].dims, (std::vector<uint32_t>{kSliceDimIndex}));
}

TEST(WorkloadMeshRulesTest, SliceMustBeTheAxisOnlyDimension) {
  EXPECT_THAT(workload_errors(one_axis_workload({"x", "slice"}), test_pod(2)),
              ElementsAre(IsDiagnostic("mesh.axes[0].dims[1]",
                                       "\"slice\" must be the only dimension of its axis")));
}

TEST(WorkloadMeshRulesTest, DimensionBelongsToOneAxis) {
  auto w = valid_workload();
  axis(w, 1).set_dims(0, "x");  // "model" over [x, z]; "data" has x
  const auto errors = workload_errors(w);
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors[0],
              IsDiagnostic("mesh.axes[1].dims[0]",
                           "dimension \"x\" is already used by mesh.axes[0] (\"data\")"));
}

TEST(WorkloadMeshRulesTest, DimensionListedTwiceInOneAxis) {
  EXPECT_THAT(workload_errors(one_axis_workload({"x", "y", "x"})),
              ElementsAre(IsDiagnostic("mesh.axes[0].dims[2]",
                                       "dimension \"x\" is already used by this axis")));
}

TEST(WorkloadMeshRulesTest, AxisOverSeveralDimensionsHasTheirProductSize) {
  // [x, y, z] is 4 x 4 x 2 = 32 chips: 32 x 2 bytes (bf16) = 64 is the least
  // all-reduce that splits evenly into elements; 32 is not.
  auto w = one_axis_workload({"z", "x", "y"});
  testing::collective(w, 0).set_bytes(64);
  const WorkloadSpec spec = load_workload(w);
  EXPECT_EQ(spec.mesh[0].dims, (std::vector<uint32_t>{2, 0, 1}));  // order kept
  testing::collective(w, 0).set_bytes(32);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[0].collective.bytes",
                                       "over the 32 chips of axes [a] (1 byte)")));
}

TEST(WorkloadMeshRulesTest, MeshDiagnosticsHaveLineAndColumn) {
  const std::string text =
      "name: \"w\"\n"                                  // 1
      "mesh {\n"                                       // 2
      "  axes { name: \"a\" dims: \"x\" }\n"           // 3
      "  axes { name: \"b\" dims: [\"y\", \"q\"] }\n"  // 4
      "}\n"                                            // 5
      "operations { name: \"o\" collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n";
  const auto errors = workload_errors(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], IsDiagnostic("mesh.axes[1].dims[1]", "unknown dimension \"q\""));
  EXPECT_EQ(errors[0].line, 4);
  EXPECT_EQ(errors[0].column, 32);  // the opening quote of "q" inside the list
}

}  // namespace
}  // namespace podsim::config
