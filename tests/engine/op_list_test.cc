// The operation-list engine with compute operations: their times are the
// compute model's, they take the chip's compute unit one at a time in file
// order, and collectives run beside them.
#include "engine/op_list.h"

#include <gtest/gtest.h>

#include "chip/compute_model.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

constexpr double kPeakFlops = 1.97e14;  // v5e bf16
constexpr double kHbmBytesPerS = 819e9;

// A v5e-like 4x4 slice without wraparound (both axes lines).
config::PodSpec v5e_4x4() {
  config::PodSpec s;
  s.name = "test";
  s.chip.name = "v5e-like";
  s.chip.peak_bf16_flops = kPeakFlops;
  s.chip.peak_int8_ops = 3.94e14;
  s.chip.hbm_bytes = 16'000'000'000;
  s.chip.hbm_bandwidth = sim::Bandwidth::from_gbps(819);
  s.chip.mxu_count = 4;
  s.chip.mxu_rows = 128;
  s.chip.mxu_columns = 128;
  s.chip.mxu_clock_hz = 1.5e9;
  s.chip.ici_ports = 4;
  for (const char* name : {"x", "y"}) {
    config::DimensionSpec d;
    d.name = name;
    d.size = 4;
    d.wraparound = false;
    d.link_bandwidth = sim::Bandwidth::from_gbps(50);
    d.hop_latency = sim::Time::us(1);
    s.torus.dims.push_back(d);
  }
  return s;
}

config::OperationSpec compute(std::string name, config::ComputeOp op,
                              std::vector<size_t> after = {}, uint32_t repeat = 1) {
  return config::OperationSpec{std::move(name), std::move(after), repeat, std::move(op)};
}

config::OperationSpec all_reduce(std::string name, uint64_t bytes, std::vector<size_t> after) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kAllReduce;
  c.bytes = bytes;
  c.axes = {"x", "y"};
  return config::OperationSpec{std::move(name), std::move(after), 1, c};
}

// Every matmul here has dimensions that are multiples of 128 (no MXU
// padding) and is bf16.
config::Matmul matmul(uint64_t m, uint64_t k, uint64_t n) {
  return config::Matmul{.m = m, .k = k, .n = n};
}

// The roofline without losses, computed here: max(2mkn / peak, bytes / HBM).
sim::Time roofline(uint64_t m, uint64_t k, uint64_t n) {
  const double flops = 2.0 * static_cast<double>(m * k * n);
  const double bytes = 2.0 * static_cast<double>(m * k + k * n + m * n);
  return sim::Time::from_ns_rounded(std::max(flops / kPeakFlops, bytes / kHbmBytesPerS) * 1e9);
}

class OpListComputeTest : public ::testing::Test {
 protected:
  OpListResult run(std::vector<config::OperationSpec> ops) const {
    config::WorkloadSpec w;
    w.name = "w";
    w.mesh = {{"x", {0}}, {"y", {1}}};
    w.operations = std::move(ops);
    return run_op_list(pod, w, network_options(pod, net::Model::kFlow), *model);
  }

  const topo::Pod pod{v5e_4x4()};
  const std::unique_ptr<chip::ComputeModel> model =
      chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {});
};

TEST_F(OpListComputeTest, ComputeTimesAreTheComputeModels) {
  const auto r = run({compute("proj", matmul(2048, 1024, 8192))});
  ASSERT_EQ(r.operations.size(), 1u);
  const OperationResult& op = r.operations[0];
  ASSERT_TRUE(op.is_compute());
  // 2 x 2048 x 1024 x 8192 / 1.97e14 = 174.4 us; compute-bound.
  const sim::Time expected = roofline(2048, 1024, 8192);
  EXPECT_NEAR(op.per_run.to_us(), expected.to_us(), 1e-3);
  EXPECT_NEAR(op.per_run.to_us(), 174.415, 1e-3);
  EXPECT_EQ(op.per_run, model->time(matmul(2048, 1024, 8192)).time);
  EXPECT_EQ(op.compute->timing.bound, chip::OpTiming::Bound::kCompute);
  EXPECT_DOUBLE_EQ(op.compute->timing.flops, 2.0 * 2048 * 1024 * 8192);
  EXPECT_EQ(op.compute->timing.bytes, 2u * (2048 * 1024 + 1024 * 8192 + 2048 * 8192));
  EXPECT_EQ(op.start, sim::Time());
  EXPECT_EQ(r.makespan, op.per_run);
}

TEST_F(OpListComputeTest, IndependentComputeOpsTakeTheUnitInFileOrder) {
  // "b" comes first in the file, so it runs first though both are ready at 0.
  const auto r = run({compute("b", matmul(1024, 1024, 1024)),
                      compute("a", matmul(2048, 1024, 8192), {}, /*repeat=*/2)});
  const sim::Time tb = roofline(1024, 1024, 1024);
  const sim::Time ta = roofline(2048, 1024, 8192);
  const OperationResult& b = r.operations[0];
  const OperationResult& a = r.operations[1];
  EXPECT_EQ(b.start, sim::Time());
  EXPECT_NEAR(b.end.to_us(), tb.to_us(), 1e-3);
  EXPECT_EQ(a.start, b.end);  // waits for the unit
  ASSERT_EQ(a.runs.size(), 2u);
  EXPECT_EQ(a.runs[1].start, a.runs[0].end);  // its runs back to back
  EXPECT_NEAR(a.per_run.to_us(), ta.to_us(), 1e-3);
  EXPECT_NEAR(r.makespan.to_us(), tb.to_us() + 2 * ta.to_us(), 2e-3);
}

TEST_F(OpListComputeTest, AnIndependentMatmulOverlapsACollective) {
  constexpr uint64_t kBytes = 32ull << 20;
  const auto alone = run({all_reduce("sum", kBytes, {})});
  const sim::Time collective = alone.operations[0].per_run;
  const sim::Time t = roofline(2048, 1024, 8192);
  ASSERT_GT(collective, t);  // the matmul fits under the all-reduce

  const auto r = run({compute("proj", matmul(2048, 1024, 8192)), all_reduce("sum", kBytes, {0}),
                      compute("next", matmul(2048, 1024, 8192))});
  const OperationResult& proj = r.operations[0];
  const OperationResult& sum = r.operations[1];
  const OperationResult& next = r.operations[2];
  EXPECT_FALSE(sum.is_compute());
  EXPECT_EQ(sum.start, proj.end);
  EXPECT_EQ(next.start, proj.end);     // on the unit after proj, beside the all-reduce
  EXPECT_EQ(sum.per_run, collective);  // compute does not slow the network
  EXPECT_LT(next.end, sum.end);
  EXPECT_NEAR(r.makespan.to_us(), t.to_us() + collective.to_us(), 1e-3);
}

TEST_F(OpListComputeTest, AComputeOpWaitsForItsDependencies) {
  const auto r =
      run({all_reduce("sum", 1 << 20, {}), compute("after", matmul(128, 128, 128), {0})});
  EXPECT_EQ(r.operations[1].start, r.operations[0].end);
  EXPECT_GT(r.operations[1].start, sim::Time());
}

}  // namespace
}  // namespace podsim::engine
