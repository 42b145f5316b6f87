#include "sim/radix_heap.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>

namespace podsim::sim {

RadixHeap::RadixHeap() : buckets_(kBuckets) {}

void RadixHeap::refill() {
  assert(near_.empty() && run_empty() && summary_ != 0);
  const int b = lowest_bucket();
  unmark(b);
  // Entries drained from bucket b land in near_ or in buckets below b (they
  // share their digits from b's level up with the new bound), never in b.
  if (buckets_.size(b) <= kDumpSize) {
    uint64_t latest = 0;
    buckets_.drain(b, [&](const QueueEntry& e) {
      near_.push(e);
      latest = std::max(latest, key(e));
    });
    bound_ = latest;
    return;
  }
  // Two passes, a scan for the earliest time and then the move. Tracking the
  // earliest time per bucket in put() to skip the scan measured ~15% slower:
  // the sequential scan pulls a large bucket into cache ahead of the move,
  // whose loads are interleaved with stores to other buckets.
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  buckets_.for_each(b, [&](const QueueEntry& e) { earliest = std::min(earliest, key(e)); });
  bound_ = earliest;
  run_.clear();
  run_pos_ = 0;
  buckets_.drain(b, [&](const QueueEntry& e) {
    const uint64_t t = key(e);
    if (t == earliest) {
      run_.push_back(e);
    } else {
      put(e, t);
    }
  });
  if (run_.size() <= kDumpSize) {  // few: the near heap is as good and stays in L1
    for (const QueueEntry& e : run_) {
      near_.push(e);
    }
    run_.clear();
    return;
  }
  // Entries pushed in sequence order often arrive sorted already: O(n) then.
  if (!std::is_sorted(run_.begin(), run_.end(), QueueEntryLess{})) {
    std::sort(run_.begin(), run_.end(), QueueEntryLess{});
  }
}

void RadixHeap::unmark(int bucket) {
  const int w = bucket / 64;
  occupied_[w] &= ~(uint64_t{1} << (bucket % 64));
  if (occupied_[w] == 0) {
    summary_ &= ~(uint64_t{1} << w);
  }
}

int RadixHeap::lowest_bucket() const {
  const int w = std::countr_zero(summary_);
  return w * 64 + std::countr_zero(occupied_[w]);
}

bool RadixHeap::is_valid() const {
  if (!near_.is_valid()) {
    return false;
  }
  std::size_t count = near_.size() + (run_.size() - run_pos_);
  for (const QueueEntry& e : near_.items()) {
    if (e.time < Time::zero() || key(e) > bound_) {
      return false;
    }
  }
  if (run_pos_ > run_.size() ||
      !std::is_sorted(run_.begin() + static_cast<std::ptrdiff_t>(run_pos_), run_.end(),
                      QueueEntryLess{})) {
    return false;
  }
  for (std::size_t i = run_pos_; i < run_.size(); ++i) {
    if (key(run_[i]) != bound_) {
      return false;
    }
  }
  uint64_t summary = 0;
  bool placed = true;
  for (int b = 0; b < kBuckets; ++b) {
    const bool marked = (occupied_[b / 64] >> (b % 64)) & 1;
    if (marked == buckets_.empty(b)) {
      return false;
    }
    if (marked) {
      summary |= uint64_t{1} << (b / 64);
    }
    buckets_.for_each(b, [&](const QueueEntry& e) {
      placed = placed && e.time >= Time::zero() && key(e) > bound_ && bucket_of(key(e)) == b;
    });

    count += buckets_.size(b);
  }
  return placed && summary == summary_ && count == size_;
}

}  // namespace podsim::sim
