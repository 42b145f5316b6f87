// podsim calibrate's fit: knobs recovered from measurements podsim itself
// made with known knobs and noise; what rows cannot identify is named; the
// written profile loads and holds the fitted knobs.
#include "calibrate/fit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/profile_writer.h"
#include "config/calibration_loader.h"
#include "config/topology_loader.h"
#include "shipped.h"

namespace podsim::calibrate {
namespace {

using ::testing::HasSubstr;

config::PodSpec topology(const std::string& file) {
  return config::load_topology_file(podsim::testing::source_dir() / "topologies" / file);
}

Row matmul(uint64_t m, uint64_t k, uint64_t n, const std::string& chip) {
  Row r;
  r.kind = RowKind::kMatmul;
  r.chip = chip;
  r.matmul.m = m;
  r.matmul.k = k;
  r.matmul.n = n;
  return r;
}

Row copy(uint64_t bytes, const std::string& chip) {
  Row r;
  r.kind = RowKind::kHbmCopy;
  r.chip = chip;
  r.bytes = bytes;
  return r;
}

Row gather(uint32_t size, bool wraps, uint64_t bytes, const std::string& chip) {
  Row r;
  r.kind = RowKind::kCollective;
  r.chip = chip;
  r.slice = {size};
  r.wraparound = {wraps};
  r.collective = config::CollectiveKind::kAllGather;
  r.bytes = bytes;
  r.axes = {0};
  return r;
}

// Rows that identify every knob on a v5e: square matmuls (the smallest
// mostly per-operation cost) and skinny ones, HBM
// copies over three decades, all-gathers on a 4-line, an 8-line and a
// 16-ring (3, 7 and 15 steps) from 64 KiB to 64 MiB.
RowSet v5e_rows() {
  const std::string chip = "TPU v5e";
  RowSet set;
  set.file = "<synthetic>";
  for (uint64_t n : {128, 192, 256, 512, 1024, 2048, 4096, 8192})
    set.rows.push_back(matmul(n, n, n, chip));
  for (uint64_t m : {16, 64, 256, 1024})
    set.rows.push_back(matmul(m, 8192, 8192, chip));
  for (uint64_t mib : {1, 4, 16, 64, 256})
    set.rows.push_back(copy(mib << 20, chip));
  for (const auto& [size, wraps] : {std::pair{4u, false}, {8u, false}, {16u, true}}) {
    for (uint64_t kib : {64, 1024, 16384, 65536})
      set.rows.push_back(gather(size, wraps, (kib << 10) * size, chip));
  }
  for (size_t i = 0; i < set.rows.size(); ++i)
    set.rows[i].line = static_cast<int>(i) + 2;
  return set;
}

config::CalibrationSpec known_knobs() {
  config::CalibrationSpec k;
  k.ici_link_efficiency = 0.8;
  k.collective_overhead = sim::Time::ns(3000);
  k.ring_step_overhead = sim::Time::ns(400);
  k.mxu_efficiency = 0.9;
  k.mxu_tile_overhead_cycles = 60;
  k.hbm_efficiency = 0.85;
  k.hbm_latency = sim::Time::ns(1500);
  k.op_overhead = sim::Time::ns(2000);
  return k;
}

// Measurements podsim makes with `knobs`, each times (1 + noise x u), u a
// fixed pseudo-random number in [-1, 1].
void measure(RowSet& set, const Predictor& p, const config::CalibrationSpec& knobs, double noise) {
  uint64_t state = 12345;
  const std::vector<double> t = p.predict(knobs);
  for (size_t i = 0; i < set.rows.size(); ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
    set.rows[i].measured_us = t[i] * (1 + noise * u);
  }
}

// Each mechanism adds what its closed form says, on the rows it acts on.
TEST(CalibrateMechanisms, EachKnobAddsItsClosedForm) {
  const std::string chip = "TPU v5e";
  RowSet set;
  set.file = "<closed forms>";
  set.rows = {gather(16, true, 16 << 20, chip), gather(4, false, 4 << 20, chip),
              copy(64 << 20, chip), matmul(8192, 8192, 8192, chip)};
  for (const net::Model model : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    const Predictor p(topology("v5e-4x4.textproto"), set, model);
    const std::vector<double> ideal = p.predict({});
    config::CalibrationSpec k;
    k.ring_step_overhead = sim::Time::ns(500);
    k.collective_overhead = sim::Time::ns(2000);
    k.hbm_latency = sim::Time::ns(700);
    k.mxu_tile_overhead_cycles = 30;
    const std::vector<double> t = p.predict(k);
    // A bidirectional 16-ring pays its 8 steps each way in a row, a 4-line
    // its 3, all after the start.
    EXPECT_NEAR(t[0] - ideal[0], 2.0 + 8 * 0.5, 1e-3) << net::to_string(model);
    EXPECT_NEAR(t[1] - ideal[1], 2.0 + 3 * 0.5, 1e-3) << net::to_string(model);
    // A copy is memory-bound: its stream's latency adds whole.
    EXPECT_NEAR(t[2] - ideal[2], 0.7, 1e-5);
    // 8192^3 on four 128x128 units: 64 x 64 tiles in 1024 rounds, 30 cycles
    // each at 1.5 GHz.
    EXPECT_NEAR(t[3] - ideal[3], 1024 * 30 / 1.5e3, 1e-3);
  }
}

TEST(CalibrateFit, RecoversEveryKnobWithinOnePercentFromNoisyMeasurements) {
  RowSet set = v5e_rows();
  const Predictor p(topology("v5e-4x4.textproto"), set, net::Model::kFlow);
  const config::CalibrationSpec truth = known_knobs();
  measure(set, p, truth, 0.001);  // 0.1% noise
  FitOptions o;
  o.leave_one_out = false;
  const FitResult f = fit(p, o);
  for (const KnobFit& k : f.knob_fits) {
    ASSERT_EQ(k.status, KnobFit::Status::kFitted) << knob_name(k.knob) << ": " << k.reason;
    const double want = knob_value(truth, k.knob);
    EXPECT_NEAR(k.value, want, 0.01 * want) << knob_name(k.knob);
    ASSERT_TRUE(k.uncertainty.has_value());
    // The truth is within a few standard deviations of the fit.
    EXPECT_LT(std::abs(k.value - want), 5 * *k.uncertainty) << knob_name(k.knob);
  }
  EXPECT_LT(f.rms_residual, 0.001);
}

TEST(CalibrateFit, ExactMeasurementsGiveTheKnobsBackAndLeaveOneOutPredictsEachRow) {
  RowSet set = v5e_rows();
  const Predictor p(topology("v5e-4x4.textproto"), set, net::Model::kAnalytical);
  measure(set, p, known_knobs(), 0);
  const FitResult f = fit(p, {});
  for (const KnobFit& k : f.knob_fits) {
    const double want = knob_value(known_knobs(), k.knob);
    EXPECT_NEAR(k.value, want, 1e-3 * want) << knob_name(k.knob);
  }
  ASSERT_TRUE(f.rms_leave_one_out.has_value());
  EXPECT_LT(*f.rms_leave_one_out, 1e-3);
  for (const RowFit& r : f.rows) {
    EXPECT_NEAR(r.residual, 0, 1e-4);
  }
}

TEST(CalibrateFit, OneLineLengthCannotTellAStepCostFromACollectiveCost) {
  const std::string chip = "TPU v5e";
  RowSet set;
  set.file = "<synthetic>";
  for (uint64_t kib : {32, 1024, 8192, 65536})
    set.rows.push_back(gather(4, false, (kib << 10) * 4, chip));
  for (size_t i = 0; i < set.rows.size(); ++i)
    set.rows[i].line = static_cast<int>(i) + 2;
  const Predictor p(topology("v5e-4x4.textproto"), set, net::Model::kFlow);
  measure(set, p, known_knobs(), 0);
  const FitResult f = fit(p, {});
  const KnobFit& step = f.knob_fits[static_cast<size_t>(Knob::kRingStepOverhead)];
  EXPECT_EQ(step.status, KnobFit::Status::kNotIdentified);
  EXPECT_THAT(step.reason, HasSubstr("collective_overhead_ns"));
  EXPECT_EQ(f.knob_fits[static_cast<size_t>(Knob::kMxuEfficiency)].status,
            KnobFit::Status::kNoRows);
  // The per-collective cost absorbs the three steps' cost: 3000 + 3 x 400.
  const KnobFit& per_collective = f.knob_fits[static_cast<size_t>(Knob::kCollectiveOverhead)];
  EXPECT_NEAR(per_collective.value, 3000 + 3 * 400, 5);
  EXPECT_NEAR(f.knob_fits[0].value, 0.8, 1e-4);
}

TEST(CalibrateFit, AHarnessOffsetIsFittedAndKeptOutOfTheProfile) {
  RowSet set;
  set.file = "<synthetic>";
  for (uint64_t n : {1024, 2048, 4096, 8192})
    set.rows.push_back(matmul(n, n, n, "TPU v5e"));
  for (size_t i = 0; i < set.rows.size(); ++i) {
    set.rows[i].line = static_cast<int>(i) + 2;
    set.rows[i].harness = "timeit";
    set.rows[i].source = "a test";
  }
  const Predictor p(topology("v5e-4x4.textproto"), set, net::Model::kFlow);
  config::CalibrationSpec truth;
  truth.mxu_efficiency = 0.92;
  measure(set, p, truth, 0);
  for (Row& r : set.rows)
    r.measured_us += 100;  // Python dispatch
  FitOptions o;
  o.knobs = {Knob::kMxuEfficiency, Knob::kOpOverhead};
  const FitResult f = fit(p, o);
  EXPECT_NEAR(f.knob_fits[static_cast<size_t>(Knob::kMxuEfficiency)].value, 0.92, 1e-4);
  ASSERT_EQ(f.harnesses.size(), 1u);
  EXPECT_NEAR(f.harnesses[0].offset_us, 100, 0.01);
  // A per-op cost moves every row as the harness does: not identified.
  EXPECT_EQ(f.knob_fits[static_cast<size_t>(Knob::kOpOverhead)].status,
            KnobFit::Status::kNotIdentified);

  const std::string text = render_profile(p, f, {"t", "flow", "test"});
  const config::CalibrationProfileSpec profile =
      config::parse_calibration_text(text, "fitted.textproto");
  EXPECT_EQ(profile.chip, "TPU v5e");
  EXPECT_NEAR(profile.calibration.mxu_efficiency, 0.92, 1e-5);
  EXPECT_EQ(profile.calibration.op_overhead, sim::Time());
  EXPECT_THAT(profile.sources.mxu_efficiency, HasSubstr("fitted by podsim calibrate"));
  EXPECT_THAT(profile.sources.op_overhead_ns, HasSubstr("not identified"));
}

}  // namespace
}  // namespace podsim::calibrate
