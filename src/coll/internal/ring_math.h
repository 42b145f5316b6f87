// Arithmetic on positions around a ring, shared by the executor's files.
//
// Internal to src/coll.
#pragma once

#include <cstdint>

namespace podsim::coll::internal {

// a mod n in [0, n), for any sign of a. n > 0.
inline uint32_t mod(int64_t a, uint32_t n) {
  const int64_t m = a % static_cast<int64_t>(n);
  return static_cast<uint32_t>(m < 0 ? m + n : m);
}

}  // namespace podsim::coll::internal
