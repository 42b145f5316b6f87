// One test per workload rule of docs/inputs.md about operations: names,
// dependencies (`after`), repeat, and the operation's kind.
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
using testing::valid_workload;
using testing::workload_errors;

podsim::Operation& op(podsim::Workload& w, int i) {
  return *w.mutable_operations(i);
}

// valid_workload() plus operations[2] "third" (a copy of "ag") after `after`.
podsim::Workload with_third(std::initializer_list<const char*> after) {
  auto w = valid_workload();
  podsim::Operation& third = *w.add_operations();
  third = w.operations(1);
  third.set_name("third");
  third.clear_after();
  for (const char* a : after)
    third.add_after(a);
  return w;
}

TEST(WorkloadOperationRulesTest, NeedsAnOperation) {
  auto w = valid_workload();
  w.clear_operations();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations", "must list at least one operation")));
}

TEST(WorkloadOperationRulesTest, NameMustNotBeEmpty) {
  auto w = valid_workload();
  op(w, 0).clear_name();
  // "ag" waits for "ar", which no longer exists.
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[0].name", "must not be empty"),
                          IsDiagnostic("operations[1].after[0]", "no operation named \"ar\"")));
}

TEST(WorkloadOperationRulesTest, NamesMustBeUnique) {
  auto w = with_third({"ar"});
  op(w, 2).set_name("ag");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[2].name",
                                       "operation name \"ag\" is already used by operations[1]")));
}

TEST(WorkloadOperationRulesTest, AfterResolvesToEarlierIndices) {
  const WorkloadSpec spec = load_workload(with_third({"ag", "ar"}));
  ASSERT_EQ(spec.operations.size(), 3u);
  EXPECT_EQ(spec.operations[2].after, (std::vector<size_t>{1, 0}));  // order kept
}

TEST(WorkloadOperationRulesTest, AfterALaterOperationIsAnError) {
  auto w = with_third({});
  op(w, 1).add_after("third");
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[1].after[1]",
                                       "\"third\" is operations[2], which comes later: an "
                                       "operation can only wait for earlier ones")));
}

TEST(WorkloadOperationRulesTest, AfterAnUnknownOperationIsAnError) {
  EXPECT_THAT(workload_errors(with_third({"ar", "nope"})),
              ElementsAre(IsDiagnostic("operations[2].after[1]", "no operation named \"nope\"")));
}

TEST(WorkloadOperationRulesTest, AfterItselfIsAnError) {
  EXPECT_THAT(
      workload_errors(with_third({"third"})),
      ElementsAre(IsDiagnostic("operations[2].after[0]", "an operation cannot wait for itself")));
}

TEST(WorkloadOperationRulesTest, AfterMustNotRepeatAName) {
  EXPECT_THAT(workload_errors(with_third({"ar", "ag", "ar"})),
              ElementsAre(IsDiagnostic("operations[2].after[2]",
                                       "\"ar\" is listed twice (also after[0])")));
}

TEST(WorkloadOperationRulesTest, RepeatZeroMeansOnce) {
  auto w = valid_workload();
  op(w, 0).set_repeat(0);
  op(w, 1).set_repeat(7);
  const WorkloadSpec spec = load_workload(w);
  EXPECT_EQ(spec.operations[0].repeat, 1u);
  EXPECT_EQ(spec.operations[1].repeat, 7u);
}

TEST(WorkloadOperationRulesTest, RepeatIsAtMostAMillion) {
  auto w = valid_workload();
  op(w, 0).set_repeat(1'000'000);
  EXPECT_EQ(load_workload(w).operations[0].repeat, 1'000'000u);
  op(w, 0).set_repeat(1'000'001);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[0].repeat", "must be <= 1000000, got 1000001")));
}

TEST(WorkloadOperationRulesTest, OperationNeedsACollective) {
  auto w = valid_workload();
  op(w, 1).clear_collective();
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("operations[1]", "operation has no collective")));
}

TEST(WorkloadOperationRulesTest, OperationDiagnosticsHaveLineAndColumn) {
  const std::string text =
      "name: \"w\"\n"                                // 1
      "mesh { axes { name: \"a\" dims: \"x\" } }\n"  // 2
      "operations {\n"                               // 3
      "  name: \"first\"\n"                          // 4
      "  after: [\"first\", \"second\"]\n"           // 5
      "  collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" }\n"
      "}\n"                                 // 7
      "operations { name: \"second\" }\n";  // 8
  const auto errors = workload_errors(text);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], IsDiagnostic("operations[0].after[0]", "cannot wait for itself"));
  EXPECT_EQ(errors[0].line, 5);
  EXPECT_EQ(errors[0].column, 11);
  EXPECT_THAT(errors[1], IsDiagnostic("operations[0].after[1]", "which comes later"));
  EXPECT_EQ(errors[1].line, 5);
  EXPECT_EQ(errors[1].column, 20);
  EXPECT_THAT(errors[2], IsDiagnostic("operations[1]", "operation has no collective"));
  EXPECT_EQ(errors[2].line, 8);
  EXPECT_EQ(errors[2].column, 1);
  EXPECT_EQ(errors[2].to_string(),
            "test.textproto:8:1: operations[1]: operation has no collective and no compute (add "
            "collective { ... } or compute { ... })");
}

}  // namespace
}  // namespace podsim::config
