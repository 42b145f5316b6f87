// The least-squares fit of `podsim calibrate` (docs/calibration.md, "How the
// fit works").
//
// Minimises the sum over rows of ((podsim's time + the row's harness offset
// - measured) / measured)^2: relative residuals, so an 8 us collective counts
// as much as a 680 us one. Parameters are the knobs the rows can identify
// (calibrate/knobs.h) and one fixed offset per harness (what a way of timing
// adds to every row it timed, such as Python dispatch; reported, never
// written to a profile). Levenberg-Marquardt on finite-difference Jacobians
// of the simulator itself, each parameter kept within its bounds; a
// parameter that ends on a bound is fixed there and the rest refitted.
//
// Identifiability: in the order of calibrate/knobs.h (harness offsets right
// after the efficiencies), a parameter joins the fit only when its column of
// the Jacobian at the starting point is not (within 1e-4 of its norm) a
// combination of those already in; otherwise it stays at its fixed value and
// the result says which parameters it cannot be told from.
//
// Uncertainties are the usual s^2 (J^T J)^-1 with s^2 = the residual sum of
// squares / (rows - parameters), carried to each knob's unit; with as many
// rows as parameters there is nothing to estimate them from, and they are
// reported as such. Leave-one-out: each row is predicted by a fit to the
// others (the same parameters), unless it is the only row identifying one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibrate/knobs.h"
#include "calibrate/predict.h"
#include "config/topology_spec.h"

namespace podsim::calibrate {

struct FitOptions {
  // The knobs to fit; empty: every knob some row moves.
  std::vector<Knob> knobs;
  // The values of the knobs not fitted, and the fit's starting point.
  config::CalibrationSpec start;
  bool leave_one_out = true;
};

struct KnobFit {
  enum class Status : uint8_t {
    kFitted,         // a fitted value, with its uncertainty when rows > parameters
    kAtBound,        // the fit pushed it to its bound (ideal, or the limit)
    kNotIdentified,  // the rows cannot tell it from the parameters in `reason`
    kNoRows,         // no row's time depends on it
    kNotAsked,       // not among FitOptions::knobs
  };
  Knob knob = Knob::kIciLinkEfficiency;
  Status status = Status::kNoRows;
  double value = 0;                   // in its unit
  std::optional<double> uncertainty;  // one standard deviation, in its unit
  std::string reason;                 // for kNotIdentified and kAtBound
  std::vector<size_t> rows;           // rows whose time it moves
};

struct HarnessFit {
  std::string harness;
  double offset_us = 0;
  std::optional<double> uncertainty_us;
  std::vector<size_t> rows;
};

struct RowFit {
  double measured_us = 0;
  double predicted_us = 0;  // podsim's time with the fitted knobs + the harness offset
  double residual = 0;      // (predicted - measured) / measured
  std::optional<double> leave_one_out_us;  // predicted by a fit without this row
  std::string leave_one_out_note;          // why not, when not
};

struct FitResult {
  config::CalibrationSpec knobs;   // start with the fitted knobs set
  std::vector<KnobFit> knob_fits;  // every knob, in kAllKnobs order
  std::vector<HarnessFit> harnesses;
  std::vector<RowFit> rows;
  size_t parameters = 0;
  double rms_residual = 0;                  // of the relative residuals
  std::optional<double> rms_leave_one_out;  // of the leave-one-out errors predicted
  int iterations = 0;
};

// Throws std::runtime_error when the fit cannot start (no parameter to fit).
FitResult fit(const Predictor& predictor, const FitOptions& options);

std::string_view to_string(KnobFit::Status status);

}  // namespace podsim::calibrate
