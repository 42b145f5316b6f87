// Unsigned counts that stop at UINT64_MAX instead of wrapping: for lower
// bounds on a run's work (study/work_estimate.h, coll::min_transfers), where
// a bound past every limit is as good as its exact value and a wrapped one
// would be wrong.
#pragma once

#include <cstdint>
#include <limits>

namespace podsim::sim {

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t s = 0;
  return __builtin_add_overflow(a, b, &s) ? std::numeric_limits<uint64_t>::max() : s;
}

inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<uint64_t>::max() : p;
}

}  // namespace podsim::sim
