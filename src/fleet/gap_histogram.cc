#include "fleet/gap_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace podsim::fleet {

int GapHistogram::bucket_of(int64_t ps) {
  if (ps < 0)
    throw std::invalid_argument("a gap between tokens cannot be negative");
  constexpr int64_t exact = int64_t{1} << kSubBits;
  if (ps < exact)
    return static_cast<int>(ps);
  const int e = 63 - std::countl_zero(static_cast<uint64_t>(ps));  // >= kSubBits
  const auto sub = static_cast<int>((ps >> (e - kSubBits)) - exact);
  return (e - kSubBits + 1) * (1 << kSubBits) + sub;
}

int64_t GapHistogram::bucket_low(int bucket) {
  constexpr int per = 1 << kSubBits;
  if (bucket < per)
    return bucket;
  const int e = bucket / per + kSubBits - 1;
  const int64_t sub = bucket % per;
  return (per + sub) << (e - kSubBits);
}

int64_t GapHistogram::bucket_width(int bucket) {
  constexpr int per = 1 << kSubBits;
  if (bucket < per)
    return 1;
  return int64_t{1} << (bucket / per - 1);
}

void GapHistogram::add(sim::Time gap, uint64_t n) {
  if (n == 0)
    return;
  const int b = bucket_of(gap.count_ps());
  if (counts_.empty())
    counts_.assign(kBuckets, 0);
  counts_[b] += n;
  count_ += n;
  sum_ps_ += static_cast<u128>(gap.count_ps()) * n;
  min_ = std::min(min_, gap);
  max_ = std::max(max_, gap);
}

void GapHistogram::merge(const GapHistogram& other) {
  if (other.count_ == 0)
    return;
  if (counts_.empty())
    counts_.assign(kBuckets, 0);
  for (int b = 0; b < kBuckets; ++b)
    counts_[b] += other.counts_[b];
  count_ += other.count_;
  sum_ps_ += other.sum_ps_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double GapHistogram::mean_s() const {
  if (count_ == 0)
    return 0;
  return static_cast<double>(sum_ps_) * 1e-12 / static_cast<double>(count_);
}

double GapHistogram::percentile_s(double q) const {
  if (count_ == 0)
    return 0;
  // Nearest rank, as fleet::percentiles() takes it over sorted values.
  const auto n = static_cast<double>(count_);
  const uint64_t rank = std::max<uint64_t>(static_cast<uint64_t>(std::ceil(q / 100 * n)), 1);
  if (rank >= count_)
    return max_.to_s();
  uint64_t seen = 0;
  int b = 0;
  for (; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank)
      break;
  }
  const int64_t mid = bucket_low(b) + bucket_width(b) / 2;
  const int64_t clamped = std::clamp(mid, min_.count_ps(), max_.count_ps());
  return sim::Time::ps(clamped).to_s();
}

}  // namespace podsim::fleet
