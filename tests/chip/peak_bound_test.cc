// "Achieved" never exceeds the peak: on every chip geometry and every op
// shape, the roofline and systolic models' FLOP/s stay at or under the
// chip's peak for the op's rate. (Before the chip's peaks came from its
// matrix units, a 256 x 256 what-if on v5e's published 197 TFLOP/s made the
// systolic model report 785 TFLOP/s achieved.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "chip/chip_rates.h"
#include "chip/compute_model.h"
#include "chip/ops.h"
#include "chip_fixture.h"

namespace podsim::chip {
namespace {

// v5e with rows x columns arrays and its peaks those of the geometry, as the
// loader derives them when a file leaves the peaks unset.
config::ChipSpec v5e_with_arrays(uint32_t rows, uint32_t columns, double load_bytes = 0) {
  config::ChipSpec c = testing::v5e();
  c.mxu_rows = rows;
  c.mxu_columns = columns;
  c.mxu_weight_load_bytes_per_cycle = load_bytes;
  c.peak_bf16_flops = 2.0 * config::matrix_unit_macs_per_s(c);
  c.peak_int8_ops = 2.0 * c.peak_bf16_flops;
  return c;
}

std::vector<Op> ops() {
  std::vector<Op> out;
  for (uint64_t m : {1, 8, 100, 128, 256, 1000, 8192})
    for (uint64_t kn : {100, 128, 1000, 8192})
      for (DType t : {DType::kBf16, DType::kInt8, DType::kInt4}) {
        const DType act = t == DType::kBf16 ? DType::kBf16 : DType::kInt8;
        out.push_back(Matmul{1, m, kn, kn, act, t});
        out.push_back(Matmul{4, m, kn, 3 * kn, act, t});
      }
  for (uint64_t kv : {1, 128, 4096})
    for (uint64_t batch : {1, 32}) {
      Attention decode;
      decode.phase = AttentionPhase::kDecode;
      decode.batch = batch;
      decode.q_len = 1;
      decode.kv_len = kv;
      decode.heads = 64;
      decode.kv_heads = 8;
      decode.head_dim = 128;
      decode.causal = false;
      out.push_back(decode);
      Attention prefill = decode;
      prefill.phase = AttentionPhase::kPrefill;
      prefill.q_len = kv;
      prefill.causal = true;
      out.push_back(prefill);
    }
  return out;
}

TEST(PeakBound, AchievedNeverExceedsThePeak) {
  const std::vector<config::ChipSpec> chips = {
      testing::v5e(), v5e_with_arrays(64, 64), v5e_with_arrays(256, 256), v5e_with_arrays(256, 128),
      v5e_with_arrays(128, 128, 4096)};  // weights load 16x faster than the default
  for (const config::ChipSpec& chip : chips) {
    const ChipRates rates(chip, {});
    for (ComputeModelKind kind : {ComputeModelKind::kRoofline, ComputeModelKind::kSystolic}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " on " + std::to_string(chip.mxu_rows) + "x" +
                   std::to_string(chip.mxu_columns));
      const auto model = make_compute_model(kind, chip, {});
      for (const Op& op : ops()) {
        const OpWork w = work(op);
        const OpTiming t = model->time(op);
        const double mxu_flops_per_s = w.mxu_flops / t.time.to_s();
        EXPECT_LE(mxu_flops_per_s, rates.peak(w.mxu_rate) * (1 + 1e-9));
        EXPECT_LE(t.mxu_utilisation, 1.0);
      }
    }
  }
}

// The weight-load rate is the chip's: a chip that loads weights twice as fast
// runs a small-batch (weight-load-bound) matmul faster, one large enough to
// hide the loads at the same speed.
TEST(PeakBound, WeightLoadRateIsTheChipsField) {
  const config::ChipSpec slow = v5e_with_arrays(128, 128);  // default: 256 bytes per cycle
  const config::ChipSpec fast = v5e_with_arrays(128, 128, 512);
  for (ComputeModelKind kind : {ComputeModelKind::kRoofline, ComputeModelKind::kSystolic}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    const auto a = make_compute_model(kind, slow, {});
    const auto b = make_compute_model(kind, fast, {});
    Matmul small{1, 8, 8192, 8192};
    small.weights_resident = true;  // no HBM: the matrix units alone
    EXPECT_LT(b->time(small).time, a->time(small).time);
    Matmul large{1, 8192, 8192, 8192};
    // (within the first tile's load, which nothing hides)
    EXPECT_NEAR(b->time(large).time.to_s() / a->time(large).time.to_s(), 1.0, 1e-4);
  }
}

}  // namespace
}  // namespace podsim::chip
