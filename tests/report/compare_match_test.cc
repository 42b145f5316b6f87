// compare --match-by: rows paired by a few columns across an intended change
// of the other inputs, with the deltas of each pair; and the appeared and
// disappeared lists, keyed by the columns that tell their rows apart and
// capped in the table.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <sstream>

#include "podsim/comparison.pb.h"
#include "report/compare.h"
#include "report/compare_junit.h"
#include "report/compare_report.h"

namespace podsim::report {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A sweep-like header: three input columns, two outputs.
constexpr const char* kMatchHeader =
    "inputs.workload.name,inputs.workload.sha256,inputs.batch,step_time_us,status\n";

CsvDocument match_doc(const std::string& rows, const std::string& name) {
  return parse_csv(kMatchHeader + rows, name);
}

CompareOptions by(const std::string& columns) {
  CompareOptions o;
  o.match_by = parse_match_by(columns);
  return o;
}

std::string rendered(const CompareOptions& o, const Comparison& c, Format f) {
  std::ostringstream out;
  render_comparison({"base.csv", "cur.csv", o}, c, f, out);
  return out.str();
}

// The workload was edited on purpose (new hash, batch 8 -> 16): by the
// whole key the rows disappear and appear; by name they pair and report
// every change.
TEST(CompareMatchBy, PairsRowsAcrossAnInputChangeAndReportsTheDeltas) {
  const CsvDocument base = match_doc("llama,aa11,8,100,ok\nmixtral,bb22,8,200,ok\n", "base.csv");
  const CsvDocument cur = match_doc("llama,cc33,16,150,ok\nmixtral,bb22,8,200,ok\n", "cur.csv");
  const Comparison whole = compare_results(base, cur, {});
  EXPECT_EQ(whole.appeared.size(), 1U);
  EXPECT_EQ(whole.disappeared.size(), 1U);
  EXPECT_TRUE(whole.moved.empty());

  const CompareOptions o = by("inputs.workload.name");
  const Comparison c = compare_results(base, cur, o);
  EXPECT_TRUE(c.appeared.empty());
  EXPECT_TRUE(c.disappeared.empty());
  EXPECT_EQ(c.scenarios_matched, 2U);
  EXPECT_EQ(c.values_compared, 8U);  // 2 rows x (2 inputs + 2 outputs)
  ASSERT_EQ(c.moved.size(), 3U);     // header order: sha256, batch, step time
  EXPECT_EQ(c.moved[0].column, "inputs.workload.sha256");
  EXPECT_FALSE(c.moved[0].delta.has_value());
  EXPECT_EQ(c.moved[1].column, "inputs.batch");
  EXPECT_DOUBLE_EQ(*c.moved[1].rel_delta, 1.0);
  EXPECT_EQ(c.moved[2].column, "step_time_us");
  EXPECT_EQ(c.moved[2].baseline, "100");
  EXPECT_EQ(c.moved[2].current, "150");
  EXPECT_DOUBLE_EQ(*c.moved[2].delta, 50);
  EXPECT_DOUBLE_EQ(*c.moved[2].rel_delta, 0.5);
  EXPECT_THAT(c.moved[2].scenario.key_text(), "inputs.workload.name=llama");

  const std::string table = rendered(o, c, Format::kTable);
  EXPECT_THAT(table, HasSubstr("+50%"));
  EXPECT_THAT(table, HasSubstr("matched by inputs.workload.name"));
  output::Comparison json;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(rendered(o, c, Format::kJson), &json).ok());
  EXPECT_THAT(json.match_by(), ElementsAre("inputs.workload.name"));
  ASSERT_EQ(json.moved_size(), 3);
  EXPECT_EQ(json.moved(2).delta(), 50);
  EXPECT_EQ(json.moved(2).rel_delta(), 0.5);
  std::ostringstream xml;
  render_junit({"base.csv", "cur.csv", o}, c, "suite", xml);
  EXPECT_THAT(xml.str(), HasSubstr("step_time_us: 100 -&gt; 150 (+50%)"));
  EXPECT_THAT(xml.str(), HasSubstr("failures=\"1\""));
}

TEST(CompareMatchBy, SeveralColumnsAndNumbersByValue) {
  const CsvDocument base = match_doc("llama,aa,8,100,ok\nllama,aa,1.6e+01,200,ok\n", "base.csv");
  const CsvDocument cur = match_doc("llama,zz,16,200,ok\nllama,zz,8.0,100,ok\n", "cur.csv");
  const Comparison c = compare_results(base, cur, by("inputs.workload.name,inputs.batch"));
  EXPECT_EQ(c.scenarios_matched, 2U);
  ASSERT_EQ(c.moved.size(), 2U);  // the hash of each pair; step times equal
  EXPECT_EQ(c.moved[0].column, "inputs.workload.sha256");
}

TEST(CompareMatchBy, DuplicatedMatchKeysAreAnErrorNamingTheRows) {
  const CsvDocument base = match_doc("llama,aa,8,100,ok\nllama,aa,16,200,ok\n", "base.csv");
  try {
    compare_results(base, base, by("inputs.workload.name"));
    ADD_FAILURE() << "duplicated --match-by keys were accepted";
  } catch (const CompareError& e) {
    EXPECT_THAT(e.what(), HasSubstr("base.csv:3: same --match-by key as line 2 "
                                    "(inputs.workload.name=llama)"));
  }
}

TEST(CompareMatchBy, UnknownOrMalformedColumnsAreRefused) {
  const CsvDocument base = match_doc("llama,aa,8,100,ok\n", "base.csv");
  try {
    compare_results(base, base, by("inputs.workload.nam"));
    ADD_FAILURE() << "an unknown --match-by column was accepted";
  } catch (const CompareError& e) {
    EXPECT_THAT(e.what(), HasSubstr("base.csv:1: --match-by column \"inputs.workload.nam\" is "
                                    "not a column of this file"));
  }
  EXPECT_THROW(parse_match_by(""), std::invalid_argument);
  EXPECT_THROW(parse_match_by("a,,b"), std::invalid_argument);
  EXPECT_THROW(parse_match_by("a,b,a"), std::invalid_argument);
  EXPECT_THAT(parse_match_by("a,b"), ElementsAre("a", "b"));
}

// 30 new batch sizes: the table names each row by the key columns that
// differ (the batch), lists 20 and counts the rest; the JSON has all 30,
// each with its whole key.
TEST(CompareUnmatched, ListsShowTheDifferingKeyColumnsCapped) {
  std::string base_rows;
  std::string cur_rows;
  for (int b = 1; b <= 30; ++b) {
    base_rows += "llama,aa," + std::to_string(b) + ",100,ok\n";
    cur_rows += "llama,aa," + std::to_string(100 + b) + ",100,ok\n";
  }
  const CompareOptions o;
  const Comparison c =
      compare_results(match_doc(base_rows, "base.csv"), match_doc(cur_rows, "cur.csv"), o);
  EXPECT_THAT(c.shown_key, ElementsAre("inputs.batch"));
  const std::string table = rendered(o, c, Format::kTable);
  EXPECT_THAT(table, HasSubstr("  llama\n    inputs.batch=1\n"));
  EXPECT_THAT(table, HasSubstr("inputs.batch=20\n"));
  EXPECT_THAT(table, Not(HasSubstr("inputs.batch=21\n")));
  EXPECT_THAT(table, HasSubstr("  ... and 10 more (every row, with its whole key: --format json)"));
  EXPECT_THAT(table, Not(HasSubstr("sha256")));
  output::Comparison json;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(rendered(o, c, Format::kJson), &json).ok());
  EXPECT_EQ(json.appeared_size(), 30);
  EXPECT_EQ(json.disappeared_size(), 30);
  EXPECT_EQ(json.disappeared(29).key_size(), 3);
  EXPECT_THAT(json.shown_key(), ElementsAre("inputs.batch"));
}

// A topology edited on purpose under every workload: the rows differ from
// each other by workload, but what changed between the lists is the hash;
// the labels tell the rows apart.
TEST(CompareUnmatched, ListsShowWhatChangedBetweenThem) {
  const CsvDocument base = match_doc("llama,aa,8,1,ok\nmixtral,bb,8,1,ok\n", "base.csv");
  const CsvDocument cur = match_doc("llama,cc,8,1,ok\nmixtral,dd,8,1,ok\n", "cur.csv");
  const Comparison c = compare_results(base, cur, {});
  EXPECT_THAT(c.shown_key, ElementsAre("inputs.workload.sha256"));
  // Rows under one label that the changed column alone does not tell apart:
  // their batch is shown too.
  const Comparison batches =
      compare_results(match_doc("llama,aa,8,1,ok\nllama,aa,16,1,ok\n", "base.csv"),
                      match_doc("llama,cc,8,1,ok\nllama,cc,16,1,ok\n", "cur.csv"), {});
  EXPECT_THAT(batches.shown_key, ElementsAre("inputs.workload.sha256", "inputs.batch"));
}

TEST(CompareUnmatched, ALoneRowIsKeyedByTheColumnsThatVaryInTheFiles) {
  const CsvDocument base = match_doc("llama,aa,8,100,ok\nllama,aa,16,100,ok\n", "base.csv");
  const CsvDocument cur =
      match_doc("llama,aa,8,100,ok\nllama,aa,16,100,ok\nllama,aa,32,100,ok\n", "cur.csv");
  const Comparison c = compare_results(base, cur, {});
  ASSERT_EQ(c.appeared.size(), 1U);
  EXPECT_THAT(c.shown_key, ElementsAre("inputs.batch"));
  EXPECT_EQ(c.appeared[0].key_text(c.shown_key), "inputs.batch=32");
  // A spreadsheet's rewriting of a number does not count as a difference.
  const Comparison rewritten = compare_results(
      match_doc("llama,aa,1.5e+09,1,ok\nllama,bb,1.5e+09,1,ok\n", "base.csv"),
      match_doc("llama,aa,1500000000,1,ok\nllama,cc,1500000000,1,ok\n", "cur.csv"), {});
  EXPECT_THAT(rewritten.shown_key, ElementsAre("inputs.workload.sha256"));
}

}  // namespace
}  // namespace podsim::report
