// The shipped profiles are what `podsim calibrate` makes of their shipped
// measurements: v5e from its three published rows, TPU7x from Google's
// published sweeps, knob by knob; and every knob a profile transfers from
// another generation (v4, v5p and v6e have no published microbenchmark; v5e
// none for HBM or per-operation costs) is that generation's fitted value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "calibrate/fit.h"
#include "config/calibration_loader.h"
#include "config/topology_loader.h"
#include "shipped.h"

namespace podsim::calibrate {
namespace {

using podsim::testing::source_dir;

struct Case {
  const char* measurements;
  const char* topology;
  const char* profile;
  std::vector<Knob> fit;
  double tolerance;  // relative: the profile writes 3 (v5e, by hand) or 6 digits
};

void expect_reproduced(const Case& c) {
  const RowSet rows = load_rows(source_dir() / c.measurements);
  const Predictor p(config::load_topology_file(source_dir() / c.topology), rows, net::Model::kFlow);
  const config::CalibrationProfileSpec shipped =
      config::load_calibration_file(source_dir() / c.profile);
  FitOptions o;
  o.knobs = c.fit;
  o.leave_one_out = false;
  // The knobs not fitted (transferred ones) are held at the profile's values.
  for (const Knob k : kAllKnobs) {
    if (std::ranges::find(c.fit, k) == c.fit.end())
      set_knob(o.start, k, knob_value(shipped.calibration, k));
  }
  const FitResult f = fit(p, o);
  for (const KnobFit& k : f.knob_fits) {
    const double want = knob_value(shipped.calibration, k.knob);
    EXPECT_NEAR(k.value, want, c.tolerance * std::max(want, 1.0)) << knob_name(k.knob);
  }
}

TEST(ShippedProfiles, V5eIsTheFitOfItsThreePublishedMeasurements) {
  expect_reproduced({"topologies/calibration/measurements/v5e.csv",
                     "topologies/v5e-4x4.textproto",
                     "topologies/calibration/v5e.textproto",
                     {Knob::kIciLinkEfficiency, Knob::kCollectiveOverhead, Knob::kMxuEfficiency},
                     5e-4});
}

TEST(ShippedProfiles, Tpu7xIsTheFitOfGooglesPublishedSweeps) {
  expect_reproduced(
      {"topologies/calibration/measurements/tpu7x.csv",
       "topologies/tpu7x-4x4x4.textproto",
       "topologies/calibration/tpu7x.textproto",
       {Knob::kIciLinkEfficiency, Knob::kMxuEfficiency, Knob::kHbmEfficiency,
        Knob::kCollectiveOverhead, Knob::kHbmLatency, Knob::kRingStepOverhead, Knob::kOpOverhead},
       1e-5});
}

struct Transfer {
  const char* profile;
  const char* from;
  std::vector<Knob> knobs;
};

// The transfers the profiles' headers and sources state.
const std::vector<Transfer>& transfers() {
  static const std::vector<Transfer> t = [] {
    const std::vector<Knob> from_v5e = {Knob::kIciLinkEfficiency, Knob::kCollectiveOverhead,
                                        Knob::kMxuEfficiency};
    const std::vector<Knob> from_tpu7x = {Knob::kHbmEfficiency, Knob::kOpOverhead};
    std::vector<Transfer> out = {{"v5e", "tpu7x", from_tpu7x}};
    for (const char* chip : {"v4", "v5p", "v6e"}) {
      out.push_back({chip, "v5e", from_v5e});
      out.push_back({chip, "tpu7x", from_tpu7x});
    }
    return out;
  }();
  return t;
}

config::CalibrationProfileSpec profile(const std::string& name) {
  return config::load_calibration_file(source_dir() / "topologies/calibration" /
                                       (name + ".textproto"));
}

TEST(ShippedProfiles, TransferredKnobsAreTheirSourcesFittedValues) {
  for (const Transfer& t : transfers()) {
    SCOPED_TRACE(std::string(t.profile) + " from " + t.from);
    const config::CalibrationProfileSpec to = profile(t.profile);
    const config::CalibrationProfileSpec from = profile(t.from);
    for (const Knob k : t.knobs) {
      SCOPED_TRACE(knob_name(k));
      // The source's value, to the six digits profiles are written with.
      const double want = knob_value(from.calibration, k);
      EXPECT_NEAR(knob_value(to.calibration, k), want, 5e-6 * want);
      EXPECT_NE(want, knob_value(config::CalibrationSpec{}, k)) << "transfers an ideal knob";
    }
  }
}

TEST(ShippedProfiles, TransferProfilesSetOnlyTransferredKnobsAndLabelThem) {
  for (const char* chip : {"v4", "v5p", "v6e"}) {
    SCOPED_TRACE(chip);
    const config::CalibrationProfileSpec p = profile(chip);
    for (const Knob k : kAllKnobs) {
      bool transferred = false;
      for (const Transfer& t : transfers()) {
        transferred = transferred || (std::string(t.profile) == chip &&
                                      std::ranges::find(t.knobs, k) != t.knobs.end());
      }
      SCOPED_TRACE(knob_name(k));
      if (!transferred) {
        EXPECT_EQ(knob_value(p.calibration, k), knob_value(config::CalibrationSpec{}, k));
      }
    }
    EXPECT_THAT(p.sources.ici_link_efficiency, ::testing::StartsWith("transferred from"));
    EXPECT_THAT(p.sources.op_overhead_ns, ::testing::StartsWith("transferred from"));
    EXPECT_THAT(p.description, ::testing::HasSubstr("transferred"));
  }
}

TEST(ShippedProfiles, EveryShippedTopologysChipHasAProfile) {
  std::set<std::string> chips;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "topologies")) {
    if (e.path().extension() == ".textproto")
      chips.insert(config::load_topology_file(e.path()).chip.name);
  }
  std::set<std::string> profiled;
  for (const char* name : {"v4", "v5e", "v5p", "v6e", "tpu7x"})
    profiled.insert(profile(name).chip);
  EXPECT_EQ(chips, profiled);
}

}  // namespace
}  // namespace podsim::calibrate
