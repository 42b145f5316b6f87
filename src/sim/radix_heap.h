// A priority queue of QueueEntry built for the way a simulation uses one: keys
// that only move forward. It is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan,
// 1990) with 4096-way digits (12 bits), in front of a small d-ary heap.
//
// The time of every entry is compared with a bound B. Entries with time <= B sit
// in the "near" heap, ordered by the full key (time, priority, sequence), or in
// a sorted "run" (below). Later entries sit in buckets indexed by (level,
// digit): level = the most significant 12-bit digit in which the time differs
// from B, digit = that digit of the time. Every entry of bucket i is earlier than every
// entry of bucket i+1, and all of them are later than B, so the smaller of the
// near heap's top and the run's front is the minimum. When both run dry, the
// lowest non-empty bucket b is emptied:
//   - at most kDumpSize entries: moved into the near heap whole; B becomes
//     their latest time;
//   - level 0 or 1 (its entries differ only in the lowest digit of their
//     time): sorted into the run (counting sort on that digit); B becomes
//     their latest time;
//   - otherwise split: B becomes the earliest time b can hold (b's digits from
//     its level up, zeros below); entries at B form the run, the others drop
//     to lower levels.
// An entry can only drop, and there are 6 levels, so it moves at most 6 times
// in its life.
//
// Why 12-bit digits: with 8-bit digits, events 1 to 2 us ahead (the hold
// model at 1e6 pending, one event per ps) went into level-2 buckets of ~65536
// entries, each split into 256 level-1 buckets, each then counting-sorted: an
// entry moved three times. With 12 bits, most go straight into a level-1
// bucket of ~4096 entries (160 KB, sorted in L2) and move twice: -14% of the
// instructions at 1e6 pending, -19% at 1e3 and -21% at 1e4 (cachegrind).
// The cost is 6 x 4096 buckets, whose 384 KB of headers are left
// uninitialised until a bucket is first used (chunked_bags.h), so that a
// short simulation does not pay for them.
//
// Why not a plain heap: measured on the hold model (kernel_benchmark,
// BM_QueueHold, pop + push per second), a 4-ary heap of these entries does 39e6
// at 1e3 pending, 13e6 at 1e5 and 1.5e6 at 1e6, where each pop walks ~10 levels
// of a 40 MB array with a cache miss per level (binary: 34e6 .. 0.9e6; 8-ary:
// 31e6 .. 2.2e6). This queue appends to and scans bucket chunks sequentially
// and does 40e6 at 1e3, 36e6 at 1e5 and 27e6 at 1e6. Measured again on a
// shared 2-core machine (medians of 3 A/B pairs), it went from 28e6, 29e6 and
// 18e6 to 29e6, 41e6 and 48e6 with the counting sort of levels 0 and 1, the
// one-pass split and the chunk prefetching.
//
// Correctness does not depend on monotone keys: an entry earlier than B simply
// goes into the near heap. Only speed does.
//
// Many entries at one time (a collective's transfers, all of one size, end
// together: 196608 at each step of a ring all-reduce on a 32x32x32 torus)
// would make the near heap large, and each pop a walk down it with a cache
// miss per level. They reach the run instead, from a bucket of level 0 or 1 or
// at a split's bound, sorted once, and pop from its front (sequential reads);
// top() is the smaller of the run's front and the near heap's top by the full
// key, so the order is the same.
//
//   push     O(1)                (O(log kDumpSize) into the near heap)
//   pop      O(1) amortised      (each entry moves at most kLevels times)
//   remove_if O(n)
//   memory   sizeof(QueueEntry) per entry, in chunks of kChunkSize entries
//            pooled between buckets, plus at most one partly filled chunk per
//            bucket in use (see capacity()).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/chunked_bags.h"
#include "sim/dary_heap.h"
#include "sim/queue_entry.h"

namespace podsim::sim {

class RadixHeap {
 public:
  static constexpr int kDigitBits = 12;
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kBuckets = kLevels * kDigits;
  // A bucket this small goes to the near heap whole instead of being split or
  // sorted. With 8-bit digits and the counting sort of levels 0 and 1, 8
  // measured +33% against 32 on the hold model at 1e5 pending (level-1
  // buckets of ~17 entries), 16 +18%, and both within noise at 1e3, 1e4 and
  // 1e6.
  static constexpr std::size_t kDumpSize = 8;
  // Entries per chunk of bucket storage (see chunked_bags.h). Larger chunks
  // are longer sequential runs for the hardware prefetcher when a bucket is
  // moved: 128 against 32 measured +9% on the hold model at 1e6 pending and
  // +15% at 1e7, within noise at 1e3 and on same-time bursts. With the spread
  // prefetch of chunked_bags.h, 64 measures the same as 128; 256 is slower.
  static constexpr std::size_t kChunkSize = 128;
  // A bucket of level 0 or 1 with fewer entries than this is sorted by
  // comparisons rather than counted: a counting sort costs O(n + kDigits).
  static constexpr std::size_t kCountingSortSize = 256;

  RadixHeap();

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Precondition: e.time >= 0 (event times never precede the start at zero).
  // Returns whether e went into the near heap: only then may top() have
  // changed, or references to the run's and near heap's entries be invalid.
  bool push(const QueueEntry& e);

  // The smallest entry. Not const: it may first refill the near heap.
  // Precondition: !empty().
  const QueueEntry& top();
  QueueEntry pop();
  // pop() when the caller holds what top() returned, with no change since:
  // saves finding it again.
  QueueEntry pop_top(const QueueEntry& top) {
    assert(&top == &this->top());
    --size_;
    return &top == run_.data() + run_pos_ ? run_[run_pos_++] : near_.pop();
  }

  // The entry k places behind top() in the sorted run, if the run holds one:
  // a hint for prefetching what popping it will touch.
  const QueueEntry* run_ahead(std::size_t k) const {
    return run_pos_ + k < run_end_ ? &run_[run_pos_ + k] : nullptr;
  }
  // The entry that pops k places after top(), k >= 1, as things stand: when
  // top() is the run's front and the run's next k entries all pop before the
  // near heap's top. Null otherwise (the near heap's order is not at hand).
  // Precondition: top() was called since the last change.
  const QueueEntry* after_top(std::size_t k) const {
    if (run_pos_ + k >= run_end_ || !run_first()) {
      return nullptr;
    }
    const QueueEntry& e = run_[run_pos_ + k];
    return near_.empty() || QueueEntryLess{}(e, near_.top()) ? &e : nullptr;
  }

  // Drops every entry for which pred is true: O(n).
  template <typename Pred>
  std::size_t remove_if(Pred pred);

  // Calls f on every entry, in no particular order.
  template <typename F>
  void for_each(F f) const;

  // Every invariant (near heap order, bounds, bucket placement, counts): O(n).
  bool is_valid() const;

  // Entries the bucket storage can hold without allocating.
  std::size_t capacity() const { return buckets_.capacity(); }

 private:
  static uint64_t key(const QueueEntry& e) { return static_cast<uint64_t>(e.time.count_ps()); }
  // The bucket of a time later than bound_.
  int bucket_of(uint64_t t) const;
  void put(const QueueEntry& e, uint64_t t);
  void refill();
  void refill_from_lowest();
  // Moves a bucket of level 0 or 1 into run_, in key order.
  void sort_into_run(int bucket);
  // Entries at or before bound_ in key order, popped from run_pos_ to run_end_.
  bool run_empty() const { return run_pos_ == run_end_; }
  // Whether the run's front pops before the near heap's top.
  bool run_first() const {
    return !run_empty() && (near_.empty() || QueueEntryLess{}(run_[run_pos_], near_.top()));
  }
  // Calls f on the number of every non-empty bucket, in rising order.
  template <typename F>
  void for_each_marked(F f) const {
    for (int w = 0; w < kOccupiedWords; ++w) {
      for (uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1) {
        f(w * 64 + std::countr_zero(bits));
      }
    }
  }
  bool marked(int bucket) const { return (occupied_[bucket / 64] >> (bucket % 64)) & 1; }
  void mark(int bucket);
  void unmark(int bucket);
  int lowest_bucket() const;

  using NearHeap = DaryHeap<QueueEntry, 4, QueueEntryLess>;

  uint64_t bound_ = 0;  // near_ holds the entries with time <= bound_
  std::size_t size_ = 0;
  NearHeap near_;
  // run_[run_pos_, run_end_) is sorted by QueueEntryLess; run_ only grows, so
  // refilling it never constructs entries.
  std::vector<QueueEntry> run_;
  std::size_t run_pos_ = 0;
  std::size_t run_end_ = 0;
  ChunkedBags<QueueEntry, kChunkSize> buckets_;  // kBuckets bags
  // Bit i of occupied_[w] says bucket 64w+i is non-empty; bit w % 64 of
  // summary_[w / 64] says occupied_[w] != 0. Finding the lowest bucket is a
  // scan of the few summary words and two count-zeros.
  static constexpr int kOccupiedWords = kBuckets / 64;
  static constexpr int kSummaryWords = (kOccupiedWords + 63) / 64;
  std::array<uint64_t, kOccupiedWords> occupied_{};
  std::array<uint64_t, kSummaryWords> summary_{};
  static_assert(kBuckets % 64 == 0);
};

// Per-event operations are defined inline: they run once or more per event.

inline int RadixHeap::bucket_of(uint64_t t) const {
  assert(t > bound_);
  const int level = (std::bit_width(t ^ bound_) - 1) / kDigitBits;
  const auto digit = static_cast<int>((t >> (level * kDigitBits)) & (kDigits - 1));
  return level * kDigits + digit;
}

inline void RadixHeap::mark(int bucket) {
  const int w = bucket / 64;
  occupied_[w] |= uint64_t{1} << (bucket % 64);
  summary_[w / 64] |= uint64_t{1} << (w % 64);
}

inline void RadixHeap::put(const QueueEntry& e, uint64_t t) {
  const int b = bucket_of(t);
  if (!marked(b)) {  // empty, and perhaps never used: its bag needs starting
    mark(b);
    buckets_.start(b);
  }
  buckets_.push(b, e);
}

// Always inlined: called out of line, push() reloads the entry its caller has
// just built on the stack, and those 16-byte loads of fields written by
// narrower stores cannot be forwarded from the store buffer; they waited for
// the stores to retire, ~12% of the hold benchmark at 1e6 pending.
[[gnu::always_inline]] inline bool RadixHeap::push(const QueueEntry& e) {
  assert(e.time >= Time::zero());
  const uint64_t t = key(e);
  const bool near = t <= bound_;
  if (near) {
    near_.push(e);
  } else {
    put(e, t);
  }
  ++size_;
  return near;
}

inline const QueueEntry& RadixHeap::top() {
  assert(!empty());
  if (near_.empty() && run_empty()) {
    refill();
  }
  return run_first() ? run_[run_pos_] : near_.top();
}

inline QueueEntry RadixHeap::pop() {
  top();  // refills the near heap if needed
  --size_;
  return run_first() ? run_[run_pos_++] : near_.pop();
}

template <typename Pred>
std::size_t RadixHeap::remove_if(Pred pred) {
  std::size_t removed = near_.remove_if(pred);
  // The run stays sorted: removal keeps the survivors' order.
  const auto run_begin = run_.begin() + static_cast<std::ptrdiff_t>(run_pos_);
  const auto run_end = run_.begin() + static_cast<std::ptrdiff_t>(run_end_);
  const auto dead = std::remove_if(run_begin, run_end, pred);
  removed += static_cast<std::size_t>(run_end - dead);
  run_end_ = static_cast<std::size_t>(dead - run_.begin());
  // Rare (a purge of cancelled events), so simply drain and refill: bound_ does
  // not change, so every survivor goes back to the bucket it came from.
  std::vector<QueueEntry> kept;
  for_each_marked([&](int b) {
    buckets_.drain(b, [&](const QueueEntry& e) {
      if (pred(e)) {
        ++removed;
      } else {
        kept.push_back(e);
      }
    });
  });
  occupied_ = {};
  summary_ = {};
  for (const QueueEntry& e : kept) {
    put(e, key(e));
  }
  size_ -= removed;
  return removed;
}

template <typename F>
void RadixHeap::for_each(F f) const {
  for (const QueueEntry& e : near_.items()) {
    f(e);
  }
  for (std::size_t i = run_pos_; i < run_end_; ++i) {
    f(run_[i]);
  }
  for_each_marked([&](int b) { buckets_.for_each(b, f); });
}

}  // namespace podsim::sim
