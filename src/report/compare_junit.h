// `podsim compare --junit FILE`: the comparison as a JUnit XML report, the
// format CI systems (Jenkins, GitLab, GitHub's test reporters) read.
//
// One <testsuite> named `suite` holds one <testcase> per scenario: every row
// matched in both files (a <failure type="moved"> listing each value beyond
// tolerance, or none), every row that disappeared (failure "disappeared")
// and every row that appeared (failure "appeared"). Test case names are the
// scenario labels, made unique with " #2", " #3", ... where labels repeat;
// the full key is the failure's text. The document is
//   <?xml ...?>\n<testsuites ...>\n<testsuite ...>\n ... </testsuite>\n</testsuites>\n
// with the <testsuite> element's lines between, so several reports merge by
// keeping those lines (scripts/nightly-regression.sh --junit does).
// Text is escaped for XML 1.0; characters XML cannot hold become '?'.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "report/compare.h"
#include "report/compare_report.h"

namespace podsim::report {

void render_junit(const CompareInputs& in, const Comparison& c, std::string_view suite,
                  std::ostream& out);

// `text` escaped for an XML attribute value or element text.
std::string xml_escaped(std::string_view text);

}  // namespace podsim::report
