// The calibration knobs `podsim calibrate` fits, as parameters of a least-
// squares problem: how each maps to a CalibrationSpec field, which rows its
// value moves, and the order in which knobs that rows cannot tell apart are
// kept (docs/calibration.md, "Which knobs a fit can identify").
//
// Efficiencies are fitted as their inverse (the time they multiply), fixed
// costs as themselves: every row's time is then close to linear in the
// parameters, so Gauss-Newton converges in a few steps and the covariance
// of the parameters is meaningful.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "calibrate/rows.h"
#include "config/topology_spec.h"

namespace podsim::calibrate {

// In the order the fit keeps them when rows cannot tell several apart: the
// bandwidth efficiencies first (every size-dependent row identifies them),
// then the fixed costs, the most specific mechanism before the most general
// (a per-collective cost before a per-step one, an HBM stream's latency
// before a per-operation cost).
enum class Knob : uint8_t {
  kIciLinkEfficiency,
  kMxuEfficiency,
  kHbmEfficiency,
  kCollectiveOverhead,
  kHbmLatency,
  kMxuTileOverhead,
  kRingStepOverhead,
  kOpOverhead,
};
inline constexpr size_t kKnobCount = 8;
inline constexpr std::array<Knob, kKnobCount> kAllKnobs = {
    Knob::kIciLinkEfficiency,  Knob::kMxuEfficiency, Knob::kHbmEfficiency,
    Knob::kCollectiveOverhead, Knob::kHbmLatency,    Knob::kMxuTileOverhead,
    Knob::kRingStepOverhead,   Knob::kOpOverhead};

// The field name, as topology.proto and calibration.proto spell it.
std::string_view knob_name(Knob knob);
std::optional<Knob> parse_knob(std::string_view name);
// "", "ns" or "cycles".
std::string_view knob_unit(Knob knob);

// Whether a row of `kind` has a time the knob can move.
bool moves(Knob knob, RowKind kind);

// The knob's value in `c`, in the unit it is written in (efficiencies as
// fractions, costs in ns or cycles), and setting it.
double knob_value(const config::CalibrationSpec& c, Knob knob);
void set_knob(config::CalibrationSpec& c, Knob knob, double value);

// The fit's parameter of a value and back: 1 / efficiency for efficiencies,
// the value itself for costs. Its lower bound (1: an efficiency of 1; 0: no
// cost) and upper bound (1000: an efficiency of 0.001; the costs' limits).
double to_parameter(Knob knob, double value);
double from_parameter(Knob knob, double parameter);
double parameter_floor(Knob knob);
double parameter_ceiling(Knob knob);
// A step that moves a row's time measurably for finite differences.
double parameter_step(Knob knob);

}  // namespace podsim::calibrate
