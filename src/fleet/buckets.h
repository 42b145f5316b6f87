// Rounding of step shapes to memo buckets (docs/serving.md, "Step times").
//
// A count x is rounded up to the next point of a grid with `steps` equal
// steps per octave: exact for x <= steps; otherwise, for 2^k <= x < 2^(k+1)
// with 2^k >= steps, the multiples of 2^k / steps. So the rounding is up by
// less than 1 / steps of the value (12.5% for 8 steps), never down, and the
// number of buckets grows with the logarithm of the range. `steps` is a power
// of two.
#pragma once

#include <cstdint>

namespace podsim::fleet {

uint64_t bucket_up(uint64_t x, uint32_t steps);
// The smallest value with the same bucket as x (x's bucket's lower edge).
uint64_t bucket_floor(uint64_t x, uint32_t steps);
// The largest grid value <= x (x itself when x is on the grid): the grid
// point below x, which refinement (fleet/refine.h) takes as a cell's lower
// corner so that neighbouring cells share their simulated corners.
uint64_t bucket_down(uint64_t x, uint32_t steps);

// The largest relative rounding up of bucket_up over every x >= 1:
// (bucket_up(x) - x) / x < 1 / steps; this is the supremum 1 / steps (0 when
// steps is so large that no value rounds: never, for a finite grid).
inline double bucket_relative_bound(uint32_t steps) {
  return 1.0 / static_cast<double>(steps);
}

}  // namespace podsim::fleet
