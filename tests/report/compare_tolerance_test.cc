// Per-column tolerances of compare_results() (issue 12 point 7): which
// pattern applies to a column, what it allows, and patterns it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "report/compare.h"

namespace podsim::report {
namespace {

using ::testing::HasSubstr;

constexpr const char* kToleranceHeader =
    "schema_version,inputs.workload,serving.step_time_us,serving.link_stats.busy_us,"
    "serving.link_stats.bytes,serving.tokens_per_s\n";

CsvDocument tolerance_doc(const std::string& rows, const std::string& name) {
  return parse_csv(kToleranceHeader + rows, name);
}

CompareOptions with(std::initializer_list<const char*> patterns) {
  CompareOptions o;
  for (const char* p : patterns) {
    o.columns.push_back(parse_column_tolerance(p));
  }
  return o;
}

TEST(CompareTolerance, ParsesPatternRelAndAbs) {
  const ColumnTolerance t = parse_column_tolerance("serving.link_stats.*=1e-3,0.5");
  EXPECT_EQ(t.pattern, "serving.link_stats.*");
  EXPECT_EQ(t.rel_tol, 1e-3);
  EXPECT_EQ(t.abs_tol, 0.5);
  EXPECT_EQ(parse_column_tolerance("serving.step_time_us=0.01").abs_tol, 0.0);
}

TEST(CompareTolerance, RefusesMalformedPatterns) {
  for (const char* bad : {"serving.step_time_us", "=1", "a=", "a=-1", "a=nan", "a=1,x", "a=1,-2",
                          "*=1", "se*ving=1", "a=inf"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_column_tolerance(bad), std::invalid_argument);
  }
}

TEST(CompareTolerance, TheMostSpecificPatternApplies) {
  const CompareOptions o =
      with({"serving.*=0.5", "serving.link_stats.*=0.1", "serving.step_time_us=0"});
  EXPECT_EQ(tolerance_for("serving.step_time_us", o)->pattern, "serving.step_time_us");
  EXPECT_EQ(tolerance_for("serving.link_stats.bytes", o)->pattern, "serving.link_stats.*");
  EXPECT_EQ(tolerance_for("serving.tokens_per_s", o)->pattern, "serving.*");
  EXPECT_EQ(tolerance_for("op_list.time_us", o), nullptr);
  // Order does not matter.
  const CompareOptions r =
      with({"serving.step_time_us=0", "serving.link_stats.*=0.1", "serving.*=0.5"});
  EXPECT_EQ(tolerance_for("serving.link_stats.bytes", r)->pattern, "serving.link_stats.*");
}

TEST(CompareTolerance, ColumnTolerancesReplaceTheDefaultsForTheirColumns) {
  const CsvDocument base = tolerance_doc("6,w,100,100,1000,50\n", "base.csv");
  const CsvDocument cur = tolerance_doc("6,w,100.5,104,1040,50.4\n", "cur.csv");
  // Defaults alone (rel 1e-6): all four move.
  EXPECT_EQ(compare_results(base, cur, {}).moved.size(), 4U);
  // Link statistics may move 5%, step time 0.4 us absolutely; tokens/s not at all.
  CompareOptions o = with({"serving.link_stats.*=0.05", "serving.step_time_us=0,0.4"});
  const Comparison c = compare_results(base, cur, o);
  ASSERT_EQ(c.moved.size(), 2U);
  EXPECT_EQ(c.moved[0].column, "serving.step_time_us");
  ASSERT_TRUE(c.moved[0].allowed.has_value());
  EXPECT_DOUBLE_EQ(*c.moved[0].allowed, 0.4);
  EXPECT_EQ(c.moved[1].column, "serving.tokens_per_s");
  EXPECT_DOUBLE_EQ(*c.moved[1].allowed, 50 * 1e-6);
  // 0.5 us allowed absolutely: the step time holds too.
  o.columns[1] = parse_column_tolerance("serving.step_time_us=0,0.5");
  EXPECT_EQ(compare_results(base, cur, o).moved.size(), 1U);
}

TEST(CompareTolerance, APatternThatNamesNoOutputColumnIsRefused) {
  const CsvDocument base = tolerance_doc("6,w,100,100,1000,50\n", "base.csv");
  for (const char* typo : {"serving.step_time=0.1", "serving.links.*=0.1", "inputs.workload=1"}) {
    SCOPED_TRACE(typo);
    try {
      compare_results(base, base, with({typo}));
      ADD_FAILURE() << "compared";
    } catch (const CompareError& e) {
      EXPECT_THAT(e.what(), HasSubstr("base.csv:1: tolerance pattern"));
      EXPECT_THAT(e.what(), HasSubstr("names no output column"));
    }
  }
}

TEST(CompareTolerance, MatchedScenariosAreListedInBaselineOrder) {
  const CsvDocument base = tolerance_doc("6,w2,1,1,1,1\n6,w1,1,1,1,1\n6,w3,1,1,1,1\n", "base.csv");
  const CsvDocument cur = tolerance_doc("6,w1,1,1,1,1\n6,w2,1,1,1,1\n", "cur.csv");
  const Comparison c = compare_results(base, cur, {});
  ASSERT_EQ(c.matched.size(), 2U);
  EXPECT_EQ(c.matched[0].key_text(), "inputs.workload=w2");
  EXPECT_EQ(c.matched[1].key_text(), "inputs.workload=w1");
  ASSERT_EQ(c.disappeared.size(), 1U);
}

}  // namespace
}  // namespace podsim::report
