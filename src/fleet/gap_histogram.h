// A streamed distribution of durations (the gaps between a request's
// tokens, docs/serving.md "Time between tokens"): fixed memory however many
// values are added, with the exact count, sum, and maximum, and percentiles
// within a documented relative error.
//
// Buckets are log-spaced in the manner of HdrHistogram: a value below 2^7
// ps has a bucket of its own; above, each power of two [2^e, 2^(e+1)) is cut
// into 2^7 = 128 equal sub-buckets of width 2^(e-7). A percentile is the
// nearest-rank value's bucket midpoint (clamped to the observed minimum and
// maximum), so it lies within half a bucket of the exact nearest-rank value
// v: |estimate - v| <= 2^(e-8) <= v / 256. kRelativeError = 2^-8 (0.39%)
// bounds every percentile's relative error; tests/fleet/tbt_test.cc checks
// it against exact percentiles of random data.
//
// Memory: kBuckets counters (57 KiB), allocated on the first add. add() is
// O(1) (a bit scan); a percentile is O(kBuckets); merge() O(kBuckets).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace podsim::fleet {

class GapHistogram {
 public:
  static constexpr int kSubBits = 7;  // 2^7 sub-buckets per power of two
  static constexpr double kRelativeError = 1.0 / (1 << (kSubBits + 1));
  // Exact buckets below 2^kSubBits ps, then 2^kSubBits per octave up to 2^63.
  static constexpr int kBuckets = (1 << kSubBits) * (64 - kSubBits);

  // `n` gaps of `gap` (>= 0).
  void add(sim::Time gap, uint64_t n = 1);
  // Adds `other`'s gaps (the result is the histogram of both streams).
  void merge(const GapHistogram& other);

  uint64_t count() const { return count_; }
  sim::Time max() const { return max_; }
  // Exact: the sum of the gaps over their count (0 when empty).
  double mean_s() const;
  // The nearest-rank q-th percentile (0 < q <= 100: the smallest gap with at
  // least q% of the gaps at or below it), within kRelativeError of it; the
  // exact maximum at q = 100. Zero when empty.
  double percentile_s(double q) const;

  // The bucket of a gap in picoseconds (>= 0), and a bucket's lowest gap
  // and width (for tests).
  static int bucket_of(int64_t ps);
  static int64_t bucket_low(int bucket);
  static int64_t bucket_width(int bucket);

 private:
  std::vector<uint64_t> counts_;  // kBuckets, or empty before the first add
  uint64_t count_ = 0;
  __extension__ using u128 = unsigned __int128;  // GCC and Clang; silences -Wpedantic
  u128 sum_ps_ = 0;                              // exact: a year of gaps would not fit 64 bits
  sim::Time min_ = sim::Time::max();
  sim::Time max_;
};

}  // namespace podsim::fleet
