// One chip: its peaks come from its matrix units (count x rows x columns x 2
// FLOP per MAC x clock, times the dtype's MACs per cell per cycle) unless the
// file gives them, and a given peak must agree with the matrix units within
// 2% (topology.proto, MatrixUnits).
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load;
using testing::text_errors;
using testing::valid_topology;

// valid_topology()'s chip: 2 units of 128 x 64 cells at 1.25 GHz, int8 at
// twice the bf16 rate.
constexpr double kBf16 = 2.0 * 2 * 128 * 64 * 1.25e9;  // 40.96 TFLOP/s

podsim::Topology without_peaks() {
  auto t = valid_topology();
  t.mutable_chip()->clear_peak();
  return t;
}

TEST(ChipPeakRulesTest, UnsetPeaksComeFromTheMatrixUnits) {
  const ChipSpec chip = load(without_peaks()).chip;
  EXPECT_DOUBLE_EQ(chip.peak_bf16_flops, kBf16);
  EXPECT_DOUBLE_EQ(chip.peak_int8_ops, 2 * kBf16);
  EXPECT_DOUBLE_EQ(chip.peak_fp8_flops, 0);  // no fp8 rate: no fp8 path
}

TEST(ChipPeakRulesTest, DoublingRowsAndColumnsQuadruplesThePeak) {
  auto t = without_peaks();
  t.mutable_chip()->mutable_matrix_units()->set_rows(256);
  t.mutable_chip()->mutable_matrix_units()->set_columns(128);
  const ChipSpec chip = load(t).chip;
  EXPECT_DOUBLE_EQ(chip.peak_bf16_flops, 4 * kBf16);
  EXPECT_DOUBLE_EQ(chip.peak_int8_ops, 8 * kBf16);
}

TEST(ChipPeakRulesTest, AGivenPeakWithinTwoPercentIsKept) {
  auto t = valid_topology();
  t.mutable_chip()->mutable_peak()->set_bf16_tflops(41.7);  // +1.8%
  EXPECT_DOUBLE_EQ(load(t).chip.peak_bf16_flops, 41.7e12);
}

TEST(ChipPeakRulesTest, AGivenPeakThatDisagreesIsRejectedNamingBoth) {
  auto t = valid_topology();
  // What "2x larger matrix units" used to do silently: the geometry changes,
  // the stale published peak stays.
  t.mutable_chip()->mutable_matrix_units()->set_rows(256);
  t.mutable_chip()->mutable_matrix_units()->set_columns(128);
  EXPECT_THAT(
      text_errors(t),
      ElementsAre(IsDiagnostic("chip.peak.bf16_tflops",
                               "41 TFLOP/s disagrees by -75.0% with the matrix units' 163.8 "
                               "TFLOP/s (2 units x 256 x 128 cells x 2 FLOP per MAC x 1.25 GHz); "
                               "leave the peak unset (0)"),
                  IsDiagnostic("chip.peak.int8_tops",
                               "82 TOP/s disagrees by -75.0% with the matrix units' 327.7 TOP/s "
                               "(2 units x 256 x 128 cells x 2 FLOP per MAC x 2 MACs per cell per "
                               "cycle x 1.25 GHz)")));
}

TEST(ChipPeakRulesTest, APeakJustOverTwoPercentOffIsRejected) {
  auto t = valid_topology();
  t.mutable_chip()->mutable_peak()->set_bf16_tflops(41.9);  // +2.3%
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.peak.bf16_tflops", "disagrees by +2.3%")));
}

TEST(ChipPeakRulesTest, ADtypePeakNeedsItsRate) {
  auto t = valid_topology();
  t.mutable_chip()->mutable_matrix_units()->clear_int8_macs_per_cycle();
  t.mutable_chip()->mutable_peak()->set_fp8_tflops(82);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.peak.int8_tops",
                                       "an int8 peak needs matrix_units.int8_macs_per_cycle"),
                          IsDiagnostic("chip.peak.fp8_tflops",
                                       "an fp8 peak needs matrix_units.fp8_macs_per_cycle")));
}

TEST(ChipPeakRulesTest, WeightLoadRateIsOptionalAndNotNegative) {
  auto t = valid_topology();
  EXPECT_DOUBLE_EQ(weight_load_bytes_per_cycle(load(t).chip), 2.0 * 64);  // one bf16 row
  t.mutable_chip()->mutable_matrix_units()->set_weight_load_bytes_per_cycle(512);
  EXPECT_DOUBLE_EQ(weight_load_bytes_per_cycle(load(t).chip), 512);
  t.mutable_chip()->mutable_matrix_units()->set_weight_load_bytes_per_cycle(-1);
  EXPECT_THAT(text_errors(t),
              ElementsAre(IsDiagnostic("chip.matrix_units.weight_load_bytes_per_cycle",
                                       "must be >= 0, got -1")));
}

}  // namespace
}  // namespace podsim::config
