// What `podsim calibrate` prints and writes: the fit as a table (every knob
// with its uncertainty, every row with its residual and leave-one-out
// error), and the fitted profile as calibration.proto text, ready for
// `--calibration`, each knob's source naming the rows it was fitted to.
#pragma once

#include <ostream>
#include <string>

#include "calibrate/fit.h"
#include "calibrate/predict.h"

namespace podsim::calibrate {

struct ProfileInfo {
  std::string name;     // the profile's name
  std::string network;  // the network model collectives were timed on
  std::string version;  // podsim's
};

// The fit, as text tables.
void print_fit(std::ostream& out, const Predictor& predictor, const FitResult& fit);

// The profile: loads with config::parse_calibration_text (a test checks).
std::string render_profile(const Predictor& predictor, const FitResult& fit,
                           const ProfileInfo& info);

}  // namespace podsim::calibrate
