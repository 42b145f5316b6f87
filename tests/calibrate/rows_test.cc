// The measurements CSV: every cell checked, every problem named by file,
// line and column.
#include "calibrate/rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/diagnostics.h"

namespace podsim::calibrate {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kHeader = std::string(kColumns) + "\n";

std::string error_of(const std::string& text) {
  try {
    parse_rows(text, "m.csv");
  } catch (const config::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CalibrateRows, ReadsEveryKind) {
  const RowSet set = parse_rows(
      kHeader +
          "matmul,TPU v5e,,,bf16,8192,8192,8192,,,,,6047.15,timeit,\"[PM], \"\"XLA\"\"\"\n"
          "hbm_copy,TPU v5e,,,,,,,,,2097152,,3.04,,\n"
          "collective,TPU v5e,16x8,x,,,,,,all_gather,33554432,x,680,,[SB]\n",
      "m.csv");
  ASSERT_EQ(set.rows.size(), 3u);
  EXPECT_EQ(set.rows[0].kind, RowKind::kMatmul);
  EXPECT_EQ(set.rows[0].matmul.m, 8192u);
  EXPECT_EQ(set.rows[0].matmul.batch, 1u);
  EXPECT_EQ(set.rows[0].harness, "timeit");
  EXPECT_EQ(set.rows[0].source, "[PM], \"XLA\"");
  EXPECT_EQ(set.rows[1].bytes, 2097152u);
  EXPECT_EQ(set.rows[2].slice, (std::vector<uint32_t>{16, 8}));
  EXPECT_EQ(set.rows[2].wraparound, (std::vector<bool>{true, false}));
  EXPECT_EQ(set.rows[2].axes, (std::vector<uint32_t>{0}));
  EXPECT_EQ(set.rows[2].line, 4);
  EXPECT_EQ(set.rows[2].describe(), "all_gather 33554432 B over x of 16x8");
  EXPECT_EQ(set.sha256.size(), 64u);
}

TEST(CalibrateRows, NamesTheLineAndColumnOfEveryBadCell) {
  const std::string e = error_of(kHeader +
                                 "matmul,TPU v5e,,,bf17,0,8,8,,,,,1,,\n"
                                 "collective,TPU v5e,4x2,y,,,,,,gather,12,w,-3,,\n"
                                 "hbm_copy,,,,,,,,,,x,,1,,\n");
  EXPECT_THAT(e, AllOf(HasSubstr("m.csv:2: dtype: must be bf16, int8 or fp8, got 'bf17'"),
                       HasSubstr("m.csv:2: m: must be in [1, 1048576], got 0"),
                       HasSubstr("m.csv:3: wraparound: dimension y has 2 chips"),
                       HasSubstr("m.csv:3: collective: must be all_gather"),
                       HasSubstr("m.csv:3: axes: 'w' is not a dimension of the slice 4x2"),
                       HasSubstr("m.csv:3: measured_us: must be a number of microseconds"),
                       HasSubstr("m.csv:4: chip: required"),
                       HasSubstr("m.csv:4: bytes: must be a whole number, got 'x'")));
}

TEST(CalibrateRows, RefusesUnknownColumnsMissingColumnsAndEmptyFiles) {
  EXPECT_THAT(error_of("kind,chip,measured_us,speed\n"),
              HasSubstr("m.csv:1: speed: unknown column"));
  EXPECT_THAT(error_of("kind,chip\nmatmul,TPU v5e\n"),
              HasSubstr("measured_us: required column is missing"));
  EXPECT_THAT(error_of(kHeader), HasSubstr("has a header but no measurements"));
  EXPECT_THAT(error_of(""), HasSubstr("m.csv"));
  EXPECT_THAT(error_of("kind,chip,measured_us\n\"matmul,x\n"), HasSubstr("m.csv"));
}

}  // namespace
}  // namespace podsim::calibrate
