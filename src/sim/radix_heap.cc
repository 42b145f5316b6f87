#include "sim/radix_heap.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace podsim::sim {

RadixHeap::RadixHeap() : buckets_(kBuckets) {}

void RadixHeap::refill() {
  assert(near_.empty() && run_empty() && size_ != 0);
  // Each pass empties the lowest bucket, so this ends: size_ > 0.
  do {
    refill_from_lowest();
  } while (near_.empty() && run_empty());
}

void RadixHeap::refill_from_lowest() {
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
  if (b < 2 * kDigits) {
    sort_into_run(b);
    return;
  }
  // A larger bucket of level 2 or more is split in one pass. The new bound is
  // the earliest time the bucket can hold (its digits from its level up, zeros
  // below), not the earliest it holds: finding that took a second pass over a
  // bucket mostly not in cache (measured on the hold model: +6% at 1e6
  // pending, +13% at 1e7 without it). Entries at the new bound form the run;
  // there may be none, and then refill() goes on to the next bucket.
  const int level = b / kDigits;
  const int high_shift = (level + 1) * kDigitBits;
  const uint64_t high = high_shift >= 64 ? 0 : (bound_ >> high_shift) << high_shift;
  const uint64_t earliest = high | (static_cast<uint64_t>(b % kDigits) << (level * kDigitBits));
  bound_ = earliest;
  run_pos_ = 0;
  run_end_ = 0;
  buckets_.drain(b, [&](const QueueEntry& e) {
    const uint64_t t = key(e);
    if (t != earliest) {
      put(e, t);
    } else if (run_end_ < run_.size()) {
      run_[run_end_++] = e;
    } else {
      run_.push_back(e);
      ++run_end_;
    }
  });
  if (run_end_ <= kDumpSize) {  // few: the near heap is as good and stays in L1
    for (std::size_t i = 0; i < run_end_; ++i) {
      near_.push(run_[i]);
    }
    run_end_ = 0;
    return;
  }
  // Entries pushed in sequence order often arrive sorted already: O(n) then.
  const auto end = run_.begin() + static_cast<std::ptrdiff_t>(run_end_);
  if (!std::is_sorted(run_.begin(), end, QueueEntryLess{})) {
    std::sort(run_.begin(), end, QueueEntryLess{});
  }
}

// A bucket of level 0 or 1 holds entries that differ from each other only in
// the lowest digit (12 bits) of their time: a counting sort on that digit puts
// them in time order in two sequential passes, instead of splitting them into
// up to 4096 level-0 buckets and refilling each. The sort is stable, so when
// the bucket holds its entries in rising order words (priority, then
// sequence), the result is in key order. That is the usual case in a simulation (entries are
// pushed in sequence order and a split keeps the order), and the first pass
// checks it; otherwise the run is checked and sorted by the full key.
//
// The counting sort costs O(n + kDigits): below kCountingSortSize entries a
// comparison sort of the run by the full key is cheaper.
void RadixHeap::sort_into_run(int b) {
  const std::size_t n = buckets_.size(b);
  if (run_.size() < n) {
    run_.resize(n);
  }
  run_pos_ = 0;
  run_end_ = n;
  const auto end = run_.begin() + static_cast<std::ptrdiff_t>(n);
  if (n < kCountingSortSize) {
    std::size_t i = 0;
    buckets_.drain(b, [&](const QueueEntry& e) { run_[i++] = e; });
    std::sort(run_.begin(), end, QueueEntryLess{});
    bound_ = key(run_[n - 1]);  // the latest
    return;
  }
  std::array<uint32_t, kDigits> start{};
  bool rising = true;  // order words (priority, sequence) rise in bag order
  uint64_t above = 0;  // the previous entry's order word + 1
  buckets_.for_each(b, [&](const QueueEntry& e) {
    ++start[key(e) & (kDigits - 1)];
    rising = rising && e.order >= above;
    above = e.order + 1;
  });
  uint32_t sum = 0;
  for (uint32_t& s : start) {
    const uint32_t count = s;
    s = sum;
    sum += count;
  }
  buckets_.drain(b, [&](const QueueEntry& e) { run_[start[key(e) & (kDigits - 1)]++] = e; });
  if (!rising && !std::is_sorted(run_.begin(), end, QueueEntryLess{})) {
    std::sort(run_.begin(), end, QueueEntryLess{});
  }
  bound_ = key(run_[n - 1]);  // the latest
}

void RadixHeap::unmark(int bucket) {
  const int w = bucket / 64;
  occupied_[w] &= ~(uint64_t{1} << (bucket % 64));
  if (occupied_[w] == 0) {
    summary_[w / 64] &= ~(uint64_t{1} << (w % 64));
  }
}

int RadixHeap::lowest_bucket() const {
  int s = 0;
  while (summary_[s] == 0) {
    ++s;
  }
  const int w = s * 64 + std::countr_zero(summary_[s]);
  return w * 64 + std::countr_zero(occupied_[w]);
}

bool RadixHeap::is_valid() const {
  if (!near_.is_valid()) {
    return false;
  }
  std::size_t count = near_.size() + (run_end_ - run_pos_);
  for (const QueueEntry& e : near_.items()) {
    if (e.time < Time::zero() || key(e) > bound_) {
      return false;
    }
  }
  if (run_pos_ > run_end_ || run_end_ > run_.size() ||
      !std::is_sorted(run_.begin() + static_cast<std::ptrdiff_t>(run_pos_),
                      run_.begin() + static_cast<std::ptrdiff_t>(run_end_), QueueEntryLess{})) {
    return false;
  }
  for (std::size_t i = run_pos_; i < run_end_; ++i) {
    if (run_[i].time < Time::zero() || key(run_[i]) > bound_) {
      return false;
    }
  }
  // Only marked buckets are visited (the debug builds validate after every
  // operation while the queue is small, and there are 24576 buckets): an
  // entry in an unmarked bucket would make the count differ from size_.
  std::array<uint64_t, kSummaryWords> summary{};
  bool placed = true;
  for_each_marked([&](int b) {
    summary[b / 64 / 64] |= uint64_t{1} << (b / 64 % 64);
    placed = placed && !buckets_.empty(b);
    buckets_.for_each(b, [&](const QueueEntry& e) {
      placed = placed && e.time >= Time::zero() && key(e) > bound_ && bucket_of(key(e)) == b;
    });
    count += buckets_.size(b);
  });
  return placed && summary == summary_ && count == size_;
}

}  // namespace podsim::sim
