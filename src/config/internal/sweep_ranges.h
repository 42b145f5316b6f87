// The values of a sweep parameter's numeric range, and how many there are.
//
// Internal to src/config. A value is start + i * step (linear) or
// start * factor^i (geometric), computed from i (never accumulated), rounded
// to 12 significant digits so that 0.1 steps give "0.3", not
// "0.30000000000000004", and written in the shortest form that reads back
// ("64", "1.5", "1e+21").
#pragma once

#include <cstdint>
#include <string>

namespace podsim::config::internal {

struct NumericRange {
  bool geometric = false;
  double start = 0;
  double stop = 0;
  double step = 0;  // the factor when geometric
};

// How many values the range has: stop is included when it is within 1e-9
// (of a step, or relative) of a value. Precondition: the range passed
// validation (finite, step > 0 or factor > 1, start <= stop, start > 0 when
// geometric). Saturates at UINT64_MAX.
uint64_t range_count(const NumericRange& r);

// The i-th value, i < range_count(r).
std::string range_value(const NumericRange& r, uint64_t i);

}  // namespace podsim::config::internal
