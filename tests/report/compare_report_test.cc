// What `podsim compare` prints: the table a person reads, CSV and JSON a
// script reads. The CSV is read back with the reader, the JSON into its
// schema (proto/podsim/comparison.proto) with Protobuf's JSON parser, as a
// script using the generated module would.
#include "report/compare_report.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <sstream>

#include "podsim/comparison.pb.h"

namespace podsim::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kHeader = "topology,workload,network,mesh,step_time_us,fits\n";

struct Fixture {
  CompareInputs in{"base.csv", "cur.csv", {1e-6, 0.5, {}, {}}};
  Comparison c;
  Fixture() {
    const CsvDocument base = parse_csv(std::string(kHeader) +
                                           "v5e,w1,flow,\"x=4,y=4\",100,true\n"
                                           "v5e,w2,flow,\"x=4,y=4\",100,true\n",
                                       "base.csv");
    const CsvDocument cur = parse_csv(std::string(kHeader) +
                                          "v5e,w1,flow,\"x=4,y=4\",110,false\n"
                                          "v5e,w3,flow,\"x=4,y=4\",100,true\n",
                                      "cur.csv");
    c = compare_results(base, cur, in.options);
  }
  std::string render(Format f) const {
    std::ostringstream out;
    render_comparison(in, c, f, out);
    return out.str();
  }
};

TEST(CompareReport, TableListsChangesAndASummary) {
  const std::string text = Fixture().render(Format::kTable);
  EXPECT_THAT(text, HasSubstr("w1 / v5e / flow"));
  EXPECT_THAT(text, HasSubstr("step_time_us"));
  EXPECT_THAT(text, HasSubstr("+10"));   // delta
  EXPECT_THAT(text, HasSubstr("+10%"));  // relative delta
  EXPECT_THAT(text, HasSubstr("disappeared (in the baseline only):\n  w2 / v5e / flow\n"));
  EXPECT_THAT(text, HasSubstr("appeared (in the current file only):\n  w3 / v5e / flow\n"));
  EXPECT_THAT(text, HasSubstr("FAIL: 2 values moved in 1 scenario, 1 scenario disappeared, "
                              "1 scenario appeared (1 scenario matched, 2 values compared, "
                              "rel-tol 1e-06, abs-tol-us 0.5)"));
}

TEST(CompareReport, CleanTableSaysOk) {
  Fixture f;
  f.c = Comparison{};
  f.c.scenarios_matched = 3;
  f.c.values_compared = 6;
  EXPECT_THAT(f.render(Format::kTable),
              HasSubstr("OK: nothing moved (3 scenarios matched, 6 values compared"));
}

TEST(CompareReport, CsvHasOneRowPerChange) {
  const CsvDocument d = parse_csv(Fixture().render(Format::kCsv), "out.csv");
  EXPECT_EQ(d.header, (std::vector<std::string>{"change", "scenario", "key", "column", "baseline",
                                                "current", "delta", "rel_delta"}));
  ASSERT_EQ(d.rows.size(), 4U);
  EXPECT_EQ(d.rows[0].cells,
            (std::vector<std::string>{"moved", "w1 / v5e / flow",
                                      "topology=v5e; workload=w1; network=flow; mesh=x=4,y=4",
                                      "step_time_us", "100", "110", "10", "0.1"}));
  EXPECT_EQ(d.rows[1].cells[0], "moved");
  EXPECT_EQ(d.rows[1].cells[3], "fits");
  EXPECT_EQ(d.rows[1].cells[6], "");  // no delta for text
  EXPECT_EQ(d.rows[2].cells[0], "disappeared");
  EXPECT_EQ(d.rows[3].cells[0], "appeared");
  EXPECT_EQ(d.rows[3].cells[1], "w3 / v5e / flow");
}

// The value of `column` in a scenario key, or "" if the key has none.
std::string key_value(const google::protobuf::RepeatedPtrField<output::KeyCell>& key,
                      const std::string& column) {
  for (const output::KeyCell& k : key) {
    if (k.column() == column) {
      return k.value();
    }
  }
  return "";
}

TEST(CompareReport, JsonCarriesEverything) {
  const std::string text = Fixture().render(Format::kJson);
  output::Comparison j;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(text, &j).ok()) << text;
  EXPECT_EQ(j.baseline(), "base.csv");
  EXPECT_EQ(j.current(), "cur.csv");
  EXPECT_DOUBLE_EQ(j.abs_tol_us(), 0.5);
  EXPECT_FALSE(j.ok());
  EXPECT_EQ(j.scenarios_matched(), 1U);
  ASSERT_EQ(j.moved_size(), 2);
  const output::MovedValue& m = j.moved(0);
  EXPECT_EQ(m.column(), "step_time_us");
  EXPECT_EQ(key_value(m.key(), "mesh"), "x=4,y=4");
  ASSERT_EQ(m.key_size(), 4);  // the key columns, in header order
  EXPECT_EQ(m.key(0).column(), "topology");
  EXPECT_DOUBLE_EQ(m.delta(), 10);
  EXPECT_DOUBLE_EQ(m.rel_delta(), 0.1);
  EXPECT_FALSE(j.moved(1).has_delta());  // "true" -> "false" is not a number
  EXPECT_FALSE(j.moved(1).has_rel_delta());
  EXPECT_THAT(text, Not(HasSubstr("null")));
  ASSERT_EQ(j.appeared_size(), 1);
  EXPECT_EQ(key_value(j.appeared(0).key(), "workload"), "w3");
  ASSERT_EQ(j.disappeared_size(), 1);
  EXPECT_EQ(j.disappeared(0).scenario(), "w2 / v5e / flow");
}

// Every field is written, so a script finds "moved": [] and "ok": true when
// nothing moved, not a missing key.
TEST(CompareReport, JsonOfACleanComparisonHasEveryKey) {
  Fixture f;
  f.c = Comparison{};
  const std::string text = f.render(Format::kJson);
  EXPECT_THAT(text, HasSubstr("\"moved\": []"));
  EXPECT_THAT(text, HasSubstr("\"appeared\": []"));
  EXPECT_THAT(text, HasSubstr("\"scenarios_matched\": 0"));
  EXPECT_THAT(text, HasSubstr("\"ok\": true"));
}

}  // namespace
}  // namespace podsim::report
