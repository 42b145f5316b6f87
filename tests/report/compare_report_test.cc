// What `podsim compare` prints: the table a person reads, CSV and JSON a
// script reads. The CSV is read back with the reader, the JSON with the
// tests' own JSON parser, so neither shares the writer's code.
#include "report/compare_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "json_value.h"

namespace podsim::report {
namespace {

using ::testing::HasSubstr;

constexpr const char* kHeader = "topology,workload,network,mesh,step_time_us,fits\n";

struct Fixture {
  CompareInputs in{"base.csv", "cur.csv", {1e-6, 0.5}};
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

TEST(CompareReport, JsonCarriesEverything) {
  const testing::JsonValue j = testing::parse_json(Fixture().render(Format::kJson));
  EXPECT_EQ(j["baseline"].as_string(), "base.csv");
  EXPECT_EQ(j["current"].as_string(), "cur.csv");
  EXPECT_DOUBLE_EQ(j["abs_tol_us"].as_number(), 0.5);
  EXPECT_FALSE(j["ok"].as_bool());
  EXPECT_DOUBLE_EQ(j["scenarios_matched"].as_number(), 1);
  const auto& moved = j["moved"].as_array();
  ASSERT_EQ(moved.size(), 2U);
  EXPECT_EQ(moved[0]["column"].as_string(), "step_time_us");
  EXPECT_EQ(moved[0]["key"]["mesh"].as_string(), "x=4,y=4");
  EXPECT_DOUBLE_EQ(moved[0]["delta"].as_number(), 10);
  EXPECT_DOUBLE_EQ(moved[0]["rel_delta"].as_number(), 0.1);
  EXPECT_TRUE(moved[1]["delta"].is_null());
  const auto& appeared = j["appeared"].as_array();
  ASSERT_EQ(appeared.size(), 1U);
  EXPECT_EQ(appeared[0]["key"]["workload"].as_string(), "w3");
  const auto& disappeared = j["disappeared"].as_array();
  ASSERT_EQ(disappeared.size(), 1U);
  EXPECT_EQ(disappeared[0]["scenario"].as_string(), "w2 / v5e / flow");
}

}  // namespace
}  // namespace podsim::report
