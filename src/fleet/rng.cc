#include "fleet/rng.h"

#include <cmath>
#include <limits>

namespace podsim::fleet {

uint64_t Rng::uniform_int(uint64_t lo, uint64_t hi) {
  const uint64_t span = hi - lo;
  if (span == std::numeric_limits<uint64_t>::max())
    return engine_();
  const uint64_t n = span + 1;
  // The largest multiple of n that fits: draws at or above it are redrawn.
  const uint64_t limit =
      std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x = engine_();
  while (x >= limit)
    x = engine_();
  return lo + x % n;
}

double Rng::exponential(double mean) {
  return -mean * std::log(uniform_open0());
}

double Rng::normal() {
  for (;;) {
    const double u = 2 * uniform() - 1;
    const double v = 2 * uniform() - 1;
    const double s = u * u + v * v;
    if (s > 0 && s < 1)
      return u * std::sqrt(-2 * std::log(s) / s);
  }
}

double Rng::gamma(double shape, double scale) {
  if (shape < 1) {
    // G(a) = G(a + 1) U^(1/a).
    const double g = gamma(shape + 1, 1);
    return scale * g * std::pow(uniform_open0(), 1 / shape);
  }
  const double d = shape - 1.0 / 3;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = uniform_open0();
    if (u < 1 - 0.0331 * x * x * x * x)
      return scale * d * v;
    if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))
      return scale * d * v;
  }
}

}  // namespace podsim::fleet
