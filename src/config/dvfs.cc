#include "config/dvfs.h"

#include <algorithm>
#include <cmath>

namespace podsim::config {

double clock_at_voltage(double v, const VoltageLaw& law) {
  const double vt = law.threshold_voltage;
  if (v <= vt) {
    return 0;
  }
  const double at = std::pow(v - vt, law.alpha) / v;
  const double nominal = std::pow(1.0 - vt, law.alpha);
  return at / nominal;
}

double voltage_for_clock(double clock_factor, const VoltageLaw& law) {
  if (clock_factor == 1.0) {
    return 1.0;  // the nominal point, exactly
  }
  // f(v) increases on (vt, inf): bisect on [vt, hi] with hi past the clock.
  double lo = law.threshold_voltage;
  double hi = 1.0;
  while (clock_at_voltage(hi, law) < clock_factor) {
    hi *= 2;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (clock_at_voltage(mid, law) < clock_factor ? lo : hi) = mid;
  }
  return std::max(hi, law.min_voltage);
}

}  // namespace podsim::config
