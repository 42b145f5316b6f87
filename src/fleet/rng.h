// The fleet layer's random numbers: a std::mt19937_64 (whose output sequence
// the C++ standard specifies exactly) and the distributions written here,
// because std::uniform_real_distribution, std::exponential_distribution and
// the rest are not specified bit for bit and differ between standard
// libraries. Same seed, same draws, on every standard library. (The
// transcendental functions come from the platform's libm; glibc's are
// correctly rounded for log and exp in double, so draws are the same on
// every glibc machine.)
#pragma once

#include <cstdint>
#include <random>

namespace podsim::fleet {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform on [0, 1): the top 53 bits of one draw.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform on (0, 1]: never 0, for logarithms.
  double uniform_open0() { return 1.0 - uniform(); }
  // Uniform integer in [lo, hi] (lo <= hi), without modulo bias (rejection).
  uint64_t uniform_int(uint64_t lo, uint64_t hi);
  // Exponential with the given mean (> 0), by inversion.
  double exponential(double mean);
  // Standard normal, by the Marsaglia polar method (one value per call; the
  // second of each pair is dropped so the stream has no hidden state).
  double normal();
  // Gamma with the given shape (> 0) and scale: Marsaglia and Tsang's method
  // (ACM TOMS 26(3), 2000), with the shape < 1 boost U^(1/shape).
  double gamma(double shape, double scale);

 private:
  std::mt19937_64 engine_;
};

}  // namespace podsim::fleet
