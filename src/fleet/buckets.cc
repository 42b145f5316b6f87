#include "fleet/buckets.h"

#include <bit>

namespace podsim::fleet {
namespace {

// The grid's spacing around x (> steps): 2^k / steps for 2^k <= x < 2^(k+1).
uint64_t spacing(uint64_t x, uint32_t steps) {
  const uint64_t octave = std::bit_floor(x);
  return octave / steps;
}

}  // namespace

uint64_t bucket_up(uint64_t x, uint32_t steps) {
  if (x <= steps)
    return x;
  const uint64_t s = spacing(x, steps);
  return (x + s - 1) / s * s;
}

uint64_t bucket_floor(uint64_t x, uint32_t steps) {
  const uint64_t up = bucket_up(x, steps);
  if (up <= steps)
    return up;
  // Values in (up - spacing, up] round to up; the spacing below `up` is that
  // of up - 1's octave (up itself may open the next octave).
  const uint64_t s = spacing(up - 1, steps);
  return up - s + 1 > steps ? up - s + 1 : steps + 1;
}

uint64_t bucket_down(uint64_t x, uint32_t steps) {
  if (x <= steps)
    return x;
  const uint64_t s = spacing(x, steps);
  return x / s * s;
}

}  // namespace podsim::fleet
