// The core voltage a clock needs, by the alpha-power law (Sakurai and
// Newton, "Alpha-power law MOSFET model and its applications to CMOS
// inverter delay and other formulas", IEEE JSSC 25(2), 1990): a gate's
// delay goes as v / (v - vt)^alpha, so the highest clock at voltage v is
//   f(v) ∝ (v - vt)^alpha / v.
// Voltages are fractions of the nominal voltage (the one that runs the
// nominal clock), clocks fractions of the nominal clock. docs/energy.md
// gives the law, its parameters and why they are estimates.
#pragma once

namespace podsim::config {

struct VoltageLaw {
  double threshold_voltage = 0.3;  // vt, in [0, 0.9)
  double alpha = 1.3;              // in [1, 2]
  double min_voltage = 0.6;        // the floor, in (vt, 1]
};

// The clock voltage v runs, as a fraction of nominal: f(v) / f(1). 1 at
// v = 1, increasing in v over (vt, inf).
double clock_at_voltage(double v, const VoltageLaw& law);

// The lowest voltage that runs `clock_factor` (> 0), floored at the law's
// min_voltage: exactly 1 at a clock factor of 1; found by bisection to
// 1e-12 otherwise. Monotone non-decreasing in clock_factor.
double voltage_for_clock(double clock_factor, const VoltageLaw& law);

}  // namespace podsim::config
