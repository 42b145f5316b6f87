// Key cells match by value (report/compare_key.h): the forms a spreadsheet
// writes a number in, and the cells that must never match.
#include "report/compare_key.h"

#include <gtest/gtest.h>

#include "report/compare.h"

namespace podsim::report {
namespace {

TEST(CompareKey, ExponentFormsMatchTheirDigits) {
  EXPECT_TRUE(same_key_cell("1.97e+14", "197000000000000"));
  EXPECT_TRUE(same_key_cell("1.5e+09", "1500000000"));
  EXPECT_TRUE(same_key_cell("3.94e+14", "394000000000000"));
  EXPECT_TRUE(same_key_cell("1E3", "1000"));
  EXPECT_TRUE(same_key_cell("2.5e-07", "0.00000025"));
  EXPECT_TRUE(same_key_cell("-1.5e+09", "-1500000000"));
}

TEST(CompareKey, TrailingZerosAndIntegersVersusFloats) {
  EXPECT_TRUE(same_key_cell("3", "3.0"));
  EXPECT_TRUE(same_key_cell("3", "3.000"));
  EXPECT_TRUE(same_key_cell("0.5", "0.50"));
  EXPECT_TRUE(same_key_cell("100", "1e2"));
  EXPECT_TRUE(same_key_cell("007", "7"));
  EXPECT_FALSE(same_key_cell("3", "4"));
  EXPECT_FALSE(same_key_cell("1.5", "15"));
}

TEST(CompareKey, SeventeenDigitsMatchTheSpreadsheetsFifteen) {
  // podsim writes the shortest round-trip form or 17 digits; a spreadsheet
  // keeps 15 (values from a sweep CSV through LibreOffice).
  EXPECT_TRUE(same_key_cell("0.1", "0.10000000000000001"));
  EXPECT_TRUE(same_key_cell("19061.814685999998", "19061.814686"));
  EXPECT_TRUE(same_key_cell("8815.757843772726", "8815.75784377273"));
  EXPECT_TRUE(same_key_cell("0.01307857078236239", "0.0130785707823624"));
}

TEST(CompareKey, TheToleranceIsAboutTwelveDigitsWithItsBoundary) {
  // Within 1e-12 and on one side of the 12th digit's rounding: match.
  EXPECT_TRUE(same_key_cell("1.2345678901241", "1.2345678901249"));
  // A 12th-digit rounding boundary between them: no match (compare_key.h).
  EXPECT_FALSE(same_key_cell("1.2345678901249", "1.2345678901251"));
  // Differences in the first 12 digits never match.
  EXPECT_FALSE(same_key_cell("1.23456789012", "1.23456789013"));
  EXPECT_FALSE(same_key_cell("1e-300", "1.00000001e-300"));
  EXPECT_EQ(canonical_key_cell("197000000000000"), canonical_key_cell("1.97e+14"));
}

TEST(CompareKey, NegativeZeroIsZero) {
  EXPECT_TRUE(same_key_cell("-0", "0"));
  EXPECT_TRUE(same_key_cell("-0.0", "0"));
  EXPECT_TRUE(same_key_cell("0e5", "0"));
  EXPECT_EQ(canonical_key_cell("-0"), "0");
}

TEST(CompareKey, NanInfinityAndEmptyCells) {
  EXPECT_TRUE(same_key_cell("nan", "NaN"));
  EXPECT_TRUE(same_key_cell("inf", "Infinity"));
  EXPECT_TRUE(same_key_cell("-inf", "-INF"));
  EXPECT_FALSE(same_key_cell("inf", "-inf"));
  EXPECT_FALSE(same_key_cell("nan", "inf"));
  EXPECT_FALSE(same_key_cell("inf", "1e308"));
  EXPECT_TRUE(same_key_cell("", ""));
  EXPECT_FALSE(same_key_cell("", "0"));
  EXPECT_FALSE(same_key_cell("", "nan"));
  EXPECT_EQ(canonical_key_cell(""), "");
}

TEST(CompareKey, TextMatchesOnlyItself) {
  EXPECT_FALSE(same_key_cell("true", "TRUE"));
  EXPECT_FALSE(same_key_cell("v5e", "v5e "));
  EXPECT_FALSE(same_key_cell("+1", "1"));       // not read as a number: text
  EXPECT_FALSE(same_key_cell("1e999", "inf"));  // out of range: text
  EXPECT_FALSE(same_key_cell("0x10", "16"));
  EXPECT_TRUE(same_key_cell("aaef4506", "aaef4506"));
  // A canonical number is never the text of another cell: "1e0" is a number.
  EXPECT_EQ(canonical_key_cell("abc"), "abc");
  EXPECT_EQ(canonical_key_cell("1e0"), canonical_key_cell("1"));
}

// compare_results() pairs rows whose numeric key cells are written apart.
TEST(CompareKey, RowsWhoseKeysASpreadsheetRewroteMatch) {
  const std::string header = "inputs.topology.name,inputs.chip.flops,inputs.batch,step_time_us\n";
  const CsvDocument base = parse_csv(
      header + "v5e,1.97e+14,8,19061.814685999998\nv5e,1.97e+14,16,1.5e+09\n", "base.csv");
  const CsvDocument cur = parse_csv(
      header + "v5e,197000000000000,8.0,19061.814686\nv5e,197000000000000,16,1500000000\n",
      "cur.csv");
  const Comparison c = compare_results(base, cur, {});
  EXPECT_TRUE(c.clean());
  EXPECT_EQ(c.scenarios_matched, 2U);
  // Keys that round alike in one file are the same scenario, twice.
  const CsvDocument twice =
      parse_csv(header + "v5e,1.97e+14,8,1\nv5e,197000000000000,8,2\n", "twice.csv");
  try {
    compare_results(twice, twice, {});
    ADD_FAILURE() << "a repeated key was accepted";
  } catch (const CompareError& e) {
    EXPECT_NE(std::string(e.what()).find("twice.csv:3: same scenario as line 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace podsim::report
