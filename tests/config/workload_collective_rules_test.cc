// One test per workload rule of docs/inputs.md about a collective: kind and
// enums, bytes, axes, even division over the group, dtype elements, root,
// shift, and fields a kind would ignore. Group sizes come from test_pod():
// "data" is x (4 chips), "model" is y x z (4 x 2 = 8 chips).
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
using testing::test_pod;
using testing::valid_workload;
using testing::workload_errors;

// valid_workload() with operations[1] replaced by a `kind` collective of
// `bytes` over `axes`.
podsim::Workload with_collective(podsim::CollectiveKind kind, uint64_t bytes,
                                 std::initializer_list<const char*> axes) {
  auto w = valid_workload();
  podsim::Collective& c = testing::collective(w, 1);
  c.Clear();
  c.set_kind(kind);
  c.set_bytes(bytes);
  for (const char* a : axes)
    c.add_axes(a);
  return w;
}

podsim::Collective& second(podsim::Workload& w) {
  return testing::collective(w, 1);
}

const CollectiveSpec& second_spec(const WorkloadSpec& spec) {
  return std::get<CollectiveSpec>(spec.operations.at(1).op);
}

constexpr const char* kBytes = "operations[1].collective.bytes";

TEST(CollectiveRulesTest, KindMustBeSet) {
  auto w = valid_workload();
  second(w).clear_kind();
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(IsDiagnostic("operations[1].collective.kind",
                               "must be set: one of ALL_GATHER, REDUCE_SCATTER, "
                               "ALL_REDUCE, ALL_TO_ALL, BROADCAST, COLLECTIVE_PERMUTE, SEND")));
}

TEST(CollectiveRulesTest, UnknownEnumValuesAreRejected) {
  // proto3 keeps enum numbers it does not know (binary input, or text
  // written as a number); podsim must not guess what they mean.
  auto w = valid_workload();
  second(w).set_kind(static_cast<podsim::CollectiveKind>(42));
  second(w).set_dtype(static_cast<podsim::DType>(9));
  second(w).set_algorithm(static_cast<podsim::CollectiveAlgorithm>(-1));
  const auto errors = workload_errors(w);
  EXPECT_THAT(
      errors,
      ElementsAre(IsDiagnostic("operations[1].collective.kind", "unknown value 42: must be one of"),
                  IsDiagnostic("operations[1].collective.dtype",
                               "unknown value 9: must be one of DTYPE_UNSPECIFIED, "
                               "BF16, FP32, FP8, INT8, INT4"),
                  IsDiagnostic("operations[1].collective.algorithm", "unknown value -1")));
}

TEST(CollectiveRulesTest, BytesMustBePositive) {
  auto w = valid_workload();
  second(w).set_bytes(0);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic(kBytes, "must be > 0")));
}

TEST(CollectiveRulesTest, AxesMustNotBeEmpty) {
  EXPECT_THAT(workload_errors(with_collective(podsim::ALL_GATHER, 64, {})),
              ElementsAre(IsDiagnostic("operations[1].collective.axes",
                                       "must name at least one mesh axis (the mesh has data, "
                                       "model)")));
}

TEST(CollectiveRulesTest, AxesMustBeMeshAxes) {
  EXPECT_THAT(workload_errors(with_collective(podsim::ALL_GATHER, 64, {"model", "x"})),
              ElementsAre(IsDiagnostic("operations[1].collective.axes[1]",
                                       "no mesh axis named \"x\" (the mesh has data, model)")));
}

TEST(CollectiveRulesTest, AxesMustNotRepeat) {
  EXPECT_THAT(workload_errors(with_collective(podsim::ALL_GATHER, 64, {"model", "data", "model"})),
              ElementsAre(IsDiagnostic("operations[1].collective.axes[2]",
                                       "axis \"model\" is listed twice")));
}

TEST(CollectiveRulesTest, GatherScatterAndReduceDivideOverTheGroup) {
  // [data, model] is 4 x 8 = 32 chips; bf16 needs 2 bytes a chip at least,
  // so valid sizes are multiples of 64. 1000 = 31 x 32 + 8.
  for (const auto kind : {podsim::ALL_GATHER, podsim::REDUCE_SCATTER, podsim::ALL_REDUCE}) {
    SCOPED_TRACE(podsim::CollectiveKind_Name(kind));
    EXPECT_EQ(second_spec(load_workload(with_collective(kind, 960, {"data", "model"}))).bytes,
              960u);
    EXPECT_THAT(
        workload_errors(with_collective(kind, 1000, {"data", "model"})),
        ElementsAre(IsDiagnostic(kBytes,
                                 "1000 bytes do not divide evenly over the 32 chips of axes [data, "
                                 "model]; use a multiple of 64")));
  }
}

TEST(CollectiveRulesTest, AllToAllDividesIntoNSquaredBlocks) {
  // "model" is 8 chips: 64 blocks. 520 divides by 8 (65) but not by 64.
  EXPECT_EQ(second_spec(load_workload(with_collective(podsim::ALL_TO_ALL, 1024, {"model"}))).kind,
            CollectiveKind::kAllToAll);
  EXPECT_THAT(workload_errors(with_collective(podsim::ALL_TO_ALL, 520, {"model"})),
              ElementsAre(IsDiagnostic(kBytes,
                                       "520 bytes do not divide evenly into the 8 x 8 blocks of "
                                       "an all-to-all over the 8 chips of axes [model]; use a "
                                       "multiple of 128")));
}

TEST(CollectiveRulesTest, BytesAreWholeElements) {
  auto w = with_collective(podsim::BROADCAST, 1023, {"model"});
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(kBytes,
                                       "1023 bytes is not a whole number of bf16 elements (2 "
                                       "bytes each)")));
  second(w).set_dtype(podsim::FP32);
  second(w).set_bytes(1022);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(kBytes, "not a whole number of fp32 elements (4 bytes")));
  // One-byte types, and int4 (two elements to a byte), take any byte count.
  for (const auto dtype : {podsim::FP8, podsim::INT8, podsim::INT4}) {
    second(w).set_dtype(dtype);
    EXPECT_EQ(second_spec(load_workload(w)).bytes, 1022u);
  }
}

TEST(CollectiveRulesTest, EachChipsShareIsWholeElements) {
  // 32 bytes over 32 chips divides, but a 1-byte share is half a bf16.
  auto w = with_collective(podsim::REDUCE_SCATTER, 32, {"data", "model"});
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic(kBytes,
                                       "each chip's share of 32 bytes over the 32 chips of axes "
                                       "[data, model] (1 byte) is not a whole number of bf16 "
                                       "elements (2 bytes each); use a multiple of 64")));
  second(w).set_dtype(podsim::INT8);
  EXPECT_EQ(second_spec(load_workload(w)).dtype, DType::kInt8);
}

TEST(CollectiveRulesTest, DtypesConvert) {
  auto w = with_collective(podsim::ALL_GATHER, 64, {"model"});
  const std::pair<podsim::DType, DType> cases[] = {{podsim::DTYPE_UNSPECIFIED, DType::kBf16},
                                                   {podsim::BF16, DType::kBf16},
                                                   {podsim::FP32, DType::kFp32},
                                                   {podsim::FP8, DType::kFp8},
                                                   {podsim::INT8, DType::kInt8},
                                                   {podsim::INT4, DType::kInt4}};
  for (const auto& [in, out] : cases) {
    second(w).set_dtype(in);
    EXPECT_EQ(second_spec(load_workload(w)).dtype, out) << podsim::DType_Name(in);
  }
}

TEST(CollectiveRulesTest, BroadcastRootIsInTheGroup) {
  auto w = with_collective(podsim::BROADCAST, 6, {"model"});  // no division needed
  second(w).set_root(7);
  EXPECT_EQ(second_spec(load_workload(w)).root, 7u);
  second(w).set_root(8);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[1].collective.root",
                                       "must be < 8 (each group is the 8 chips of axes [model]), "
                                       "got 8")));
}

TEST(CollectiveRulesTest, PermuteShiftIsNonZeroAndInsideTheGroup) {
  auto w = with_collective(podsim::COLLECTIVE_PERMUTE, 6, {"model"});
  for (const int32_t ok : {1, -1, 7, -7}) {
    second(w).set_shift(ok);
    EXPECT_EQ(second_spec(load_workload(w)).shift, ok);
  }
  second(w).set_shift(0);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[1].collective.shift", "must not be 0")));
  for (const int32_t bad : {8, -8, std::numeric_limits<int32_t>::min()}) {
    second(w).set_shift(bad);
    EXPECT_THAT(workload_errors(w),
                ElementsAre(IsDiagnostic("operations[1].collective.shift",
                                         "must be in [-7, 7] (not 0) for the 8 chips of axes "
                                         "[model], got " +
                                             std::to_string(bad))));
  }
}

TEST(CollectiveRulesTest, PermuteOverOneChipIsAnError) {
  auto w = with_collective(podsim::COLLECTIVE_PERMUTE, 6, {"s"});
  auto& s = *w.mutable_mesh()->add_axes();
  s.set_name("s");
  s.add_dims("slice");  // one slice: groups of one chip
  second(w).set_shift(1);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[1].collective.shift",
                                       "each group is the 1 chip of axes [s]: there is no other "
                                       "chip to send to")));
}

TEST(CollectiveRulesTest, FieldsTheKindWouldIgnoreAreErrors) {
  auto w = with_collective(podsim::ALL_GATHER, 64, {"model"});
  second(w).set_root(1);
  second(w).set_shift(2);
  second(w).set_compute_reduction(true);
  EXPECT_THAT(
      workload_errors(w),
      ElementsAre(
          IsDiagnostic("operations[1].collective.root",
                       "only BROADCAST has a root; ALL_GATHER would ignore it"),
          IsDiagnostic("operations[1].collective.shift",
                       "only COLLECTIVE_PERMUTE has a shift; ALL_GATHER would ignore it"),
          IsDiagnostic("operations[1].collective.compute_reduction",
                       "only REDUCE_SCATTER and ALL_REDUCE reduce; ALL_GATHER would ignore it")));
}

TEST(CollectiveRulesTest, EveryFieldConverts) {
  auto w = with_collective(podsim::REDUCE_SCATTER, 64, {"model", "data"});
  second(w).set_algorithm(podsim::SEQUENTIAL_AXES);
  second(w).set_compute_reduction(true);
  const CollectiveSpec c = second_spec(load_workload(w));
  EXPECT_EQ(c.kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(c.bytes, 64u);
  EXPECT_EQ(c.axes, (std::vector<std::string>{"model", "data"}));
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::kSequentialAxes);
  EXPECT_TRUE(c.compute_reduction);
  const std::pair<podsim::CollectiveAlgorithm, CollectiveAlgorithm> algorithms[] = {
      {podsim::ALGORITHM_AUTO, CollectiveAlgorithm::kAuto},
      {podsim::BIDIRECTIONAL_RING, CollectiveAlgorithm::kBidirectionalRing},
      {podsim::UNIDIRECTIONAL_RING, CollectiveAlgorithm::kUnidirectionalRing}};
  for (const auto& [in, out] : algorithms) {
    second(w).set_algorithm(in);
    EXPECT_EQ(second_spec(load_workload(w)).algorithm, out);
  }
  const std::pair<podsim::CollectiveKind, CollectiveKind> kinds[] = {
      {podsim::ALL_GATHER, CollectiveKind::kAllGather},
      {podsim::ALL_REDUCE, CollectiveKind::kAllReduce},
      {podsim::ALL_TO_ALL, CollectiveKind::kAllToAll},
      {podsim::BROADCAST, CollectiveKind::kBroadcast}};
  second(w).set_compute_reduction(false);
  second(w).set_bytes(2048);  // 32 x 32 all-to-all blocks of one bf16 each
  for (const auto& [in, out] : kinds) {
    second(w).set_kind(in);
    EXPECT_EQ(second_spec(load_workload(w)).kind, out);
  }
}

TEST(CollectiveRulesTest, SliceAxisCountsTheSlices) {
  // Two slices: [dcn, data] is 2 x 4 = 8 chips; 20 bytes do not divide.
  auto w = with_collective(podsim::ALL_REDUCE, 16, {"dcn", "data"});
  auto& dcn = *w.mutable_mesh()->add_axes();
  dcn.set_name("dcn");
  dcn.add_dims("slice");
  EXPECT_EQ(second_spec(load_workload(w, test_pod(2))).bytes, 16u);
  second(w).set_bytes(20);
  EXPECT_THAT(workload_errors(w, test_pod(2)),
              ElementsAre(IsDiagnostic(kBytes,
                                       "20 bytes do not divide evenly over the 8 chips of axes "
                                       "[dcn, data]; use a multiple of 16")));
}

TEST(CollectiveRulesTest, BrokenMeshAxisSkipsSizeChecks) {
  // The mesh error is reported; the collective over the broken axis is not
  // checked against a size that does not exist.
  auto w = with_collective(podsim::ALL_GATHER, 1000, {"model"});
  w.mutable_mesh()->mutable_axes(1)->set_dims(1, "q");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("mesh.axes[1].dims[1]", "unknown dimension \"q\"")));
}

TEST(CollectiveRulesTest, CollectiveDiagnosticsHaveLineAndColumn) {
  const std::string text =
      "name: \"w\"\n"                                // 1
      "mesh { axes { name: \"a\" dims: \"x\" } }\n"  // 2
      "operations {\n"                               // 3
      "  name: \"o\"\n"                              // 4
      "  collective {\n"                             // 5
      "    kind: ALL_REDUCE\n"                       // 6
      "    bytes: 6\n"                               // 7
      "    axes: \"a\"\n"                            // 8
      "  }\n"                                        // 9
      "}\n";
  const auto errors = workload_errors(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].to_string(),
            "test.textproto:7:5: operations[0].collective.bytes: 6 bytes do not divide evenly "
            "over the 4 chips of axes [a]; use a multiple of 8");
}

}  // namespace
}  // namespace podsim::config
