// Axis ticks on "nice" numbers (1, 2 or 5 times a power of ten) and the
// numbers an SVG is written with: both locale-free and deterministic, so the
// same inputs give the same page bytes.
#pragma once

#include <string>
#include <vector>

namespace podsim::html {

struct Ticks {
  double lo = 0;               // the axis starts here (a multiple of step, <= the data)
  double hi = 1;               // and ends here (a multiple of step, >= the data)
  double step = 1;             // 1, 2 or 5 x 10^k
  std::vector<double> values;  // lo, lo + step, ..., hi
};

// Ticks covering [lo, hi] with at most `max_ticks` intervals (>= 1), the
// smallest nice step that fits. A range of zero width is widened around its
// value (to [0, 1] when it is 0); non-finite bounds are treated as [0, 1].
Ticks nice_ticks(double lo, double hi, int max_ticks = 6);

// A tick's label: `v` with as many decimals as `step` needs ("0.25", "40",
// "1.5e+06" past 1e6), and "0" rather than "-0".
std::string tick_label(double v, double step);

// A coordinate in an SVG: one decimal, no exponent ("12.3", "-4", "0").
std::string coord(double v);

// A figure for a table or a label: up to 4 significant digits ("0.7109",
// "3.273", "91.65", "1.2e+05" past 99999), "-" when not finite.
std::string figure(double v);

}  // namespace podsim::html
