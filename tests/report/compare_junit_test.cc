// `podsim compare --junit`: the JUnit XML report, read back with
// Boost.PropertyTree's XML parser as a CI system would read it.
#include "report/compare_junit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace podsim::report {
namespace {

using ::testing::HasSubstr;
namespace pt = boost::property_tree;

constexpr const char* kJunitHeader =
    "inputs.workload.name,inputs.workload.sha256,step_time_us,fits\n";

struct Junit {
  std::string text;
  pt::ptree tree;
};

Junit junit_of(const std::string& base_rows, const std::string& cur_rows,
               const std::string& suite = "serving") {
  const CompareInputs in{"base.csv", "cur.csv", {1e-6, 0, {}, {}}};
  const Comparison c = compare_results(parse_csv(kJunitHeader + base_rows, "base.csv"),
                                       parse_csv(kJunitHeader + cur_rows, "cur.csv"), in.options);
  Junit j;
  std::ostringstream out;
  render_junit(in, c, suite, out);
  j.text = out.str();
  std::istringstream in_xml(j.text);
  pt::read_xml(in_xml, j.tree);
  return j;
}

struct CaseView {
  std::string name;
  std::string failure_type;  // empty when none
  std::string failure_text;
};

std::vector<CaseView> cases(const Junit& j) {
  std::vector<CaseView> out;
  for (const auto& [tag, node] : j.tree.get_child("testsuites.testsuite")) {
    if (tag != "testcase") {
      continue;
    }
    CaseView c{node.get<std::string>("<xmlattr>.name"), "", ""};
    if (const auto f = node.get_child_optional("failure")) {
      c.failure_type = f->get<std::string>("<xmlattr>.type");
      c.failure_text = f->data();
    }
    out.push_back(c);
  }
  return out;
}

TEST(CompareJunit, OneTestCasePerScenarioWithFailuresForWhatMoved) {
  const Junit j = junit_of("w1,v5e,100,true\nw2,v5e,100,true\nw3,v5e,1,true\n",
                           "w1,v5e,100,true\nw2,v5e,110,false\nw4,v5e,1,true\n");
  const auto& suite = j.tree.get_child("testsuites.testsuite");
  EXPECT_EQ(suite.get<std::string>("<xmlattr>.name"), "serving");
  EXPECT_EQ(suite.get<int>("<xmlattr>.tests"), 4);
  EXPECT_EQ(suite.get<int>("<xmlattr>.failures"), 3);
  EXPECT_EQ(j.tree.get<int>("testsuites.<xmlattr>.failures"), 3);
  const auto cs = cases(j);
  ASSERT_EQ(cs.size(), 4U);
  EXPECT_EQ(cs[0].failure_type, "");
  EXPECT_EQ(cs[1].failure_type, "moved");
  EXPECT_THAT(cs[1].failure_text, HasSubstr("step_time_us: 100 -> 110 (+10%)"));
  EXPECT_THAT(cs[1].failure_text, HasSubstr("fits: true -> false"));
  EXPECT_EQ(cs[2].failure_type, "disappeared");
  EXPECT_THAT(cs[2].failure_text, HasSubstr("inputs.workload.name=w3"));
  EXPECT_EQ(cs[3].failure_type, "appeared");
  EXPECT_THAT(cs[3].failure_text, HasSubstr("inputs.workload.name=w4"));
}

TEST(CompareJunit, CleanComparisonHasNoFailures) {
  const Junit j = junit_of("w1,v5e,100,true\n", "w1,v5e,100,true\n");
  EXPECT_EQ(j.tree.get<int>("testsuites.testsuite.<xmlattr>.failures"), 0);
  EXPECT_EQ(j.tree.get<int>("testsuites.testsuite.<xmlattr>.tests"), 1);
}

TEST(CompareJunit, MarkupInCellsIsEscapedAndNamesAreUnique) {
  // Labels come from the workload/topology cells; the same label twice gets #2.
  const Junit j =
      junit_of("\"<a&b>\",\"x\"\"y\",1,true\n\"<a&b>\",\"z\",2,true\n", "", "suite <&>");
  EXPECT_EQ(j.tree.get<std::string>("testsuites.testsuite.<xmlattr>.name"), "suite <&>");
  const auto cs = cases(j);
  ASSERT_EQ(cs.size(), 2U);
  // The key shows the columns that tell the rows apart (issue 32): the hash.
  EXPECT_EQ(cs[0].failure_text, "key: inputs.workload.sha256=x\"y\n");
  EXPECT_THAT(cs[0].name, HasSubstr("<a&b>"));
  EXPECT_NE(cs[0].name, cs[1].name);
  EXPECT_THAT(cs[1].name, HasSubstr(" #2"));
  EXPECT_EQ(xml_escaped("a\x01\tb'\""), "a?\tb&apos;&quot;");
}

}  // namespace
}  // namespace podsim::report
