// The shipped profiles are what `podsim calibrate` makes of their shipped
// measurements: v5e from its three published rows, TPU7x from Google's
// published sweeps, knob by knob.
#include <gtest/gtest.h>

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
  FitOptions o;
  o.knobs = c.fit;
  o.leave_one_out = false;
  const FitResult f = fit(p, o);
  const config::CalibrationProfileSpec shipped =
      config::load_calibration_file(source_dir() / c.profile);
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

}  // namespace
}  // namespace podsim::calibrate
