// compare_results() on small result files written by hand: which rows match,
// which values move under which tolerance, rows that appear or disappear,
// and the files it refuses to compare.
#include "report/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace podsim::report {
namespace {

using ::testing::HasSubstr;

// A serving-like header: schema, four key columns, three outputs.
constexpr const char* kHeader =
    "schema_version,topology,workload,network,batch,step_time_us,tokens_per_s,fits\n";

CsvDocument doc(const std::string& rows, const std::string& name = "base.csv",
                const std::string& header = kHeader) {
  return parse_csv(header + rows, name);
}

std::string error_of(const CsvDocument& base, const CsvDocument& cur) {
  try {
    compare_results(base, cur, {});
  } catch (const CompareError& e) {
    return e.what();
  }
  return "";
}

TEST(Compare, IdenticalFilesAreClean) {
  const std::string rows = "1,v5e,w1,flow,8,100,80,true\n1,v5e,w2,flow,8,200,40,true\n";
  const Comparison c = compare_results(doc(rows), doc(rows, "cur.csv"), {});
  EXPECT_TRUE(c.clean());
  EXPECT_EQ(c.scenarios_matched, 2U);
  EXPECT_EQ(c.values_compared, 6U);  // 2 rows x 3 outputs
}

TEST(Compare, RowsMatchByKeyNotByPosition) {
  const Comparison c =
      compare_results(doc("1,v5e,w1,flow,8,100,80,true\n1,v5e,w2,flow,8,200,40,true\n"),
                      doc("1,v5e,w2,flow,8,200,40,true\n1,v5e,w1,flow,8,100,80,true\n"), {});
  EXPECT_TRUE(c.clean());
  EXPECT_EQ(c.scenarios_matched, 2U);
}

TEST(Compare, AValueBeyondTheRelativeToleranceMoves) {
  const CsvDocument base = doc("1,v5e,w1,flow,8,100,80,true\n");
  const CsvDocument cur = doc("1,v5e,w1,flow,8,100.5,80,true\n", "cur.csv");
  const Comparison strict = compare_results(base, cur, {1e-3, 0, {}, {}});  // 0.5 > 0.1
  ASSERT_EQ(strict.moved.size(), 1U);
  const MovedValue& m = strict.moved[0];
  EXPECT_EQ(m.column, "step_time_us");
  EXPECT_EQ(m.baseline, "100");
  EXPECT_EQ(m.current, "100.5");
  ASSERT_TRUE(m.delta.has_value());
  EXPECT_DOUBLE_EQ(*m.delta, 0.5);
  ASSERT_TRUE(m.rel_delta.has_value());
  EXPECT_DOUBLE_EQ(*m.rel_delta, 0.005);
  EXPECT_EQ(m.scenario.label, "w1 / v5e / flow");
  EXPECT_EQ(m.scenario.key_text(), "topology=v5e; workload=w1; network=flow; batch=8");
  EXPECT_FALSE(strict.clean());
  EXPECT_TRUE(compare_results(base, cur, {1e-2, 0, {}, {}}).clean());  // 0.5 <= 1.0
}

TEST(Compare, RelativeDeltaIsAgainstTheBaselinesMagnitude) {
  const Comparison c = compare_results(doc("1,v5e,w1,flow,8,-200,80,true\n"),
                                       doc("1,v5e,w1,flow,8,-190,80,true\n"), {});
  ASSERT_EQ(c.moved.size(), 1U);
  EXPECT_DOUBLE_EQ(*c.moved[0].delta, 10);
  EXPECT_DOUBLE_EQ(*c.moved[0].rel_delta, 0.05);
}

TEST(Compare, AbsoluteToleranceAppliesToMicrosecondColumnsOnly) {
  // Both outputs move by 0.4; abs-tol-us 0.5 covers step_time_us, not tokens_per_s.
  const Comparison c = compare_results(doc("1,v5e,w1,flow,8,100,80,true\n"),
                                       doc("1,v5e,w1,flow,8,100.4,80.4,true\n"), {0, 0.5, {}, {}});
  ASSERT_EQ(c.moved.size(), 1U);
  EXPECT_EQ(c.moved[0].column, "tokens_per_s");
}

TEST(Compare, ToleranceIsTheLargerOfRelativeAndAbsolute) {
  // |delta| > max(rel x |base|, abs): the boundary itself does not move.
  EXPECT_FALSE(value_moved("step_time_us", 100, 101, {0.01, 0, {}, {}}));
  EXPECT_TRUE(value_moved("step_time_us", 100, 101.5, {0.01, 0, {}, {}}));
  EXPECT_FALSE(value_moved("step_time_us", 100, 101.5, {0.01, 2, {}, {}}));
  EXPECT_TRUE(value_moved("step_time_us", 100, 103, {0.01, 2, {}, {}}));
  EXPECT_TRUE(value_moved("mfu", 0.5, 0.6, {0.1, 1, {}, {}}));  // abs ignored: not a _us column
  EXPECT_TRUE(value_moved("x_us", 1, 1 + 1e-9, {0, 0, {}, {}}));
  EXPECT_TRUE(value_moved("x_us", std::nan(""), 1, {1, 1, {}, {}}));
  EXPECT_TRUE(value_moved("x_us", 1, std::nan(""), {1, 1, {}, {}}));
}

TEST(Compare, NumbersCompareByValueAndTextByText) {
  // "100" and "1e2" are the same number; true -> false is a change without a delta.
  const Comparison c = compare_results(doc("1,v5e,w1,flow,8,100,80,true\n"),
                                       doc("1,v5e,w1,flow,8,1e2,80,false\n"), {});
  ASSERT_EQ(c.moved.size(), 1U);
  EXPECT_EQ(c.moved[0].column, "fits");
  EXPECT_FALSE(c.moved[0].delta.has_value());
  EXPECT_FALSE(c.moved[0].rel_delta.has_value());
}

TEST(Compare, AZeroBaselineHasNoRelativeDelta) {
  const Comparison c =
      compare_results(doc("1,v5e,w1,flow,8,0,80,true\n"), doc("1,v5e,w1,flow,8,3,80,true\n"), {});
  ASSERT_EQ(c.moved.size(), 1U);
  EXPECT_DOUBLE_EQ(*c.moved[0].delta, 3);
  EXPECT_FALSE(c.moved[0].rel_delta.has_value());
}

TEST(Compare, RowsThatAppearOrDisappearAreFailures) {
  const Comparison c =
      compare_results(doc("1,v5e,w1,flow,8,100,80,true\n1,v5e,w2,flow,8,1,1,true\n"),
                      doc("1,v5e,w1,flow,8,100,80,true\n1,v5e,w1,flow,16,1,1,true\n"), {});
  EXPECT_FALSE(c.clean());
  EXPECT_TRUE(c.moved.empty());
  EXPECT_EQ(c.scenarios_matched, 1U);
  ASSERT_EQ(c.disappeared.size(), 1U);
  EXPECT_EQ(c.disappeared[0].label, "w2 / v5e / flow");
  ASSERT_EQ(c.appeared.size(), 1U);
  // Same label as the matched row: only the full key tells them apart.
  EXPECT_EQ(c.appeared[0].key_text(), "topology=v5e; workload=w1; network=flow; batch=16");
}

TEST(Compare, RepeatedHeaderLinesAreSkipped) {
  // Two runs' CSV concatenated with `cat`: the second header is not a row.
  const std::string runs =
      "1,v5e,w1,flow,8,100,80,true\n" + std::string(kHeader) + "1,v5e,w2,flow,8,200,40,true\n";
  const Comparison c = compare_results(
      doc(runs), doc("1,v5e,w1,flow,8,100,80,true\n1,v5e,w2,flow,8,200,40,true\n"), {});
  EXPECT_TRUE(c.clean());
  EXPECT_EQ(c.scenarios_matched, 2U);
  EXPECT_TRUE(c.appeared.empty());
}

TEST(Compare, EmptyFilesCompareClean) {
  const Comparison c = compare_results(doc(""), doc(""), {});
  EXPECT_TRUE(c.clean());
  EXPECT_EQ(c.values_compared, 0U);
}

TEST(Compare, OperationRowsAreKeyedByName) {
  const std::string header = "topology,workload,network,chips,name,kind,time_us,busbw_gbps\n";
  const CsvDocument base =
      doc("v5e,tour,flow,16,ag,all-gather,10,90\nv5e,tour,flow,16,ar,all-reduce,20,80\n",
          "base.csv", header);
  const CsvDocument cur =
      doc("v5e,tour,flow,16,ag,all-gather,10,90\nv5e,tour,flow,16,ar,all-reduce,25,80\n", "cur.csv",
          header);
  const Comparison c = compare_results(base, cur, {});
  ASSERT_EQ(c.moved.size(), 1U);
  EXPECT_EQ(c.moved[0].scenario.label, "tour / v5e / flow / ar");
  EXPECT_EQ(c.moved[0].column, "time_us");
  EXPECT_EQ(c.values_compared, 6U);  // kind, time_us, busbw_gbps x 2 rows
}

TEST(Compare, DifferentHeadersAreRefused) {
  const std::string other =
      "schema_version,topology,workload,network,batch,step_time_us,tokens,fits\n";
  EXPECT_THAT(error_of(doc(""), doc("", "cur.csv", other)),
              HasSubstr("cur.csv:1: header differs from base.csv:1: column 7 is 'tokens' here "
                        "and 'tokens_per_s' there"));
  const std::string shorter = "schema_version,topology,workload,network,batch,step_time_us\n";
  EXPECT_THAT(error_of(doc(""), doc("", "cur.csv", shorter)), HasSubstr("6 columns here, 8 there"));
}

TEST(Compare, DifferentSchemaVersionsAreRefused) {
  EXPECT_THAT(
      error_of(doc("1,v5e,w1,flow,8,100,80,true\n"),
               doc("1,v5e,w1,flow,8,100,80,true\n2,v5e,w2,flow,8,100,80,true\n", "cur.csv")),
      HasSubstr("cur.csv:3: schema_version 2, expected 1"));
}

TEST(Compare, ARepeatedKeyIsRefused) {
  EXPECT_THAT(
      error_of(
          doc("1,v5e,w1,flow,8,100,80,true\n1,v5e,w2,flow,8,1,1,true\n1,v5e,w1,flow,8,9,9,true\n"),
          doc("")),
      HasSubstr("base.csv:4: same scenario as line 2 (w1 / v5e / flow)"));
}

TEST(Compare, AFileWithoutKeyColumnsIsRefused) {
  EXPECT_THAT(error_of(doc("1,2\n", "base.csv", "a,b\n"), doc("1,2\n", "cur.csv", "a,b\n")),
              HasSubstr("base.csv:1: no scenario key column"));
}

TEST(Compare, KeyColumnsAreTheInputs) {
  for (const char* c : {"topology", "workload", "model", "network", "compute", "chips", "mesh",
                        "phase", "batch", "prompt_len", "context_len", "micro_batches",
                        "weight_dtype", "activation_dtype", "kv_dtype", "name"}) {
    EXPECT_TRUE(is_key_column(c)) << c;
  }
  for (const char* c :
       {"schema_version", "step_time_us", "tokens_per_s", "fits", "kind", "bytes"}) {
    EXPECT_FALSE(is_key_column(c)) << c;
  }
}

}  // namespace
}  // namespace podsim::report
