// One chip, end to end: the what-ifs a micro-architect asks of `podsim run`
// on the embedded default (LLaMA-3-70B decode, batch 512 at context 2048, on
// v5e 16x16: a decode step bound by HBM), on both analytic compute models.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::run;

double step_us(const std::string& compute, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"run", "-q", "--format", "json", "--compute", compute};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const Result r = run(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  return testing::parse_result(r.out).serving().step_time_us();
}

const std::vector<std::string> kLargerArrays = {
    "topology.chip.matrix_units.rows=256", "topology.chip.matrix_units.columns=256",
    // the published peaks describe 128 x 128 arrays: let the geometry give them
    "topology.chip.peak.bf16_tflops=0", "topology.chip.peak.int8_tops=0"};

TEST(ChipGeometry, LargerArraysLeaveAnHbmBoundDecodeWithinOnePercent) {
  for (const std::string compute : {"roofline", "systolic"}) {
    SCOPED_TRACE(compute);
    const double base = step_us(compute, {});
    const double larger = step_us(compute, kLargerArrays);
    EXPECT_NEAR(larger / base, 1.0, 0.01) << base << " -> " << larger;
  }
}

TEST(ChipGeometry, ChangingTheArraysUnderAStalePeakFailsNamingBoth) {
  const Result r = run({"run", "-q", "--set", "topology.chip.matrix_units.rows=256", "--set",
                        "topology.chip.matrix_units.columns=256"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("chip.peak.bf16_tflops: 197 TFLOP/s disagrees by -75.0% with the matrix "
                       "units' 786.4 TFLOP/s (4 units x 256 x 256 cells"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ChipGeometry, Int4WeightsMakeAnHbmBoundDecodeFasterThanInt8) {
  for (const std::string compute : {"roofline", "systolic"}) {
    SCOPED_TRACE(compute);
    const double int8 = step_us(
        compute, {"workload.model.weight_dtype=INT8", "workload.model.activation_dtype=INT8"});
    const double int4 = step_us(
        compute, {"workload.model.weight_dtype=INT4", "workload.model.activation_dtype=INT8"});
    // Half the weight bytes; the KV cache (bf16) and the collectives stay.
    EXPECT_LT(int4, 0.9 * int8) << int8 << " -> " << int4;
  }
}

}  // namespace
}  // namespace podsim::cli
