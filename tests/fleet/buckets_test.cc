#include "fleet/buckets.h"

#include <gtest/gtest.h>

namespace podsim::fleet {
namespace buckets_test {

TEST(Buckets, ExactBelowTheStepsAndUpByLessThanOneStepAbove) {
  for (uint32_t steps : {1u, 2u, 4u, 8u, 16u}) {
    for (uint64_t x = 1; x < 5000; ++x) {
      const uint64_t up = bucket_up(x, steps);
      EXPECT_GE(up, x);
      EXPECT_LT(static_cast<double>(up - x) / static_cast<double>(x),
                bucket_relative_bound(steps) + 1e-12)
          << x << " steps " << steps;
      if (x <= steps) {
        EXPECT_EQ(up, x);
      }
      EXPECT_EQ(bucket_up(up, steps), up) << "a bucket's value is its own bucket";
      const uint64_t down = bucket_down(x, steps);
      EXPECT_LE(down, x);
      EXPECT_EQ(bucket_up(down, steps), down) << "the point below is on the grid: " << x;
      EXPECT_EQ(down == x, up == x) << x;
      if (down < x) {
        EXPECT_EQ(bucket_up(down + 1, steps), up) << "nothing on the grid between: " << x;
      }
      const uint64_t low = bucket_floor(x, steps);
      EXPECT_LE(low, x);
      EXPECT_EQ(bucket_up(low, steps), up) << x;
      if (low > 1) {
        EXPECT_LT(bucket_up(low - 1, steps), up) << "the lower edge is the smallest: " << x;
      }
    }
  }
}

TEST(Buckets, FewBucketsPerOctave) {
  uint64_t distinct = 0;
  uint64_t last = 0;
  for (uint64_t x = 1; x <= (1u << 20); ++x) {
    const uint64_t up = bucket_up(x, 8);
    if (up != last)
      ++distinct;
    last = up;
  }
  // 16 exact values, then 8 per octave from 16 to 2^20 (16 octaves).
  EXPECT_LE(distinct, 16u + 8u * 17u);
}

}  // namespace buckets_test
}  // namespace podsim::fleet
