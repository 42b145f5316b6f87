// One conformance suite for every priority queue of QueueEntry that the event
// queue may use (cf. ns-3's scheduler test suite): each must pop entries in the
// total order (time, priority, sequence), whatever the order of pushes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "sim/dary_heap.h"
#include "sim/queue_entry.h"
#include "sim/radix_heap.h"

namespace podsim::sim {
namespace {

template <std::size_t Arity>
using Heap = DaryHeap<QueueEntry, Arity, QueueEntryLess>;

// The expected order, computed without any of the queues under test.
bool reference_less(const QueueEntry& a, const QueueEntry& b) {
  if (a.time.count_ps() != b.time.count_ps()) {
    return a.time.count_ps() < b.time.count_ps();
  }
  if (a.priority() != b.priority()) {
    return a.priority() < b.priority();
  }
  return a.seq() < b.seq();
}

template <typename Q>
std::vector<uint64_t> drain(Q& q) {
  std::vector<uint64_t> seqs;
  while (!q.empty()) {
    seqs.push_back(q.pop().seq());
  }
  return seqs;
}

std::vector<uint64_t> sorted_seqs(std::vector<QueueEntry> entries) {
  std::sort(entries.begin(), entries.end(), reference_less);
  std::vector<uint64_t> seqs;
  for (const QueueEntry& e : entries) {
    seqs.push_back(e.seq());
  }
  return seqs;
}

TEST(QueueEntryTest, PacksPriorityAndSequenceIntoOneOrderedWord) {
  for (const int priority : {kMinPriority, -1, 0, 1, kMaxPriority}) {
    for (const uint64_t seq : {uint64_t{0}, uint64_t{12'345}, kMaxSequence}) {
      const QueueEntry e = QueueEntry::make(Time::ps(7), priority, seq, {});
      EXPECT_EQ(e.priority(), priority);
      EXPECT_EQ(e.seq(), seq);
    }
  }
  // A lower priority orders first whatever the sequences.
  EXPECT_LT(QueueEntry::make_order(-1, kMaxSequence), QueueEntry::make_order(0, 0));
  EXPECT_LT(QueueEntry::make_order(0, 1), QueueEntry::make_order(0, 2));
}

template <typename Q>
class PriorityQueueTest : public ::testing::Test {};

using Queues = ::testing::Types<Heap<2>, Heap<4>, Heap<8>, RadixHeap>;
TYPED_TEST_SUITE(PriorityQueueTest, Queues);

TYPED_TEST(PriorityQueueTest, PopsByTimeThenPriorityThenSequence) {
  TypeParam q;
  const std::vector<QueueEntry> entries = {
      QueueEntry::make(Time::ps(5), 1, 0, {}), QueueEntry::make(Time::ps(5), 0, 1, {}),
      QueueEntry::make(Time::ps(3), 9, 2, {}), QueueEntry::make(Time::ps(5), -2, 3, {}),
      QueueEntry::make(Time::ps(5), 0, 4, {}), QueueEntry::make(Time::ps(9), -9, 5, {}),
      QueueEntry::make(Time::ps(0), 0, 6, {}),
  };
  for (const QueueEntry& e : entries) {
    q.push(e);
  }
  EXPECT_EQ(q.size(), entries.size());
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{6, 2, 3, 1, 4, 0, 5}));
}

TYPED_TEST(PriorityQueueTest, MatchesAnOrderedSetOnRandomMonotoneUse) {
  // Pops interleaved with pushes that are never earlier than the last pop:
  // how a simulation uses its queue. Each pop must be the reference's minimum.
  const auto less = [](const QueueEntry& a, const QueueEntry& b) { return reference_less(a, b); };
  std::set<QueueEntry, decltype(less)> reference(less);
  std::mt19937_64 rng(42);
  TypeParam q;
  int64_t now = 0;
  uint64_t seq = 0;
  for (int step = 0; step < 20'000; ++step) {
    if (q.empty() || rng() % 3 != 0) {
      // Mix tiny and huge delays so entries spread over many radix levels.
      const int shift = static_cast<int>(rng() % 48);
      const auto delay = static_cast<int64_t>(rng() % (uint64_t{1} << shift));
      const QueueEntry e =
          QueueEntry::make(Time::ps(now + delay), static_cast<int32_t>(rng() % 3) - 1, seq++, {});
      q.push(e);
      reference.insert(e);
    } else {
      const QueueEntry e = q.pop();
      ASSERT_EQ(e.seq(), reference.begin()->seq());
      reference.erase(reference.begin());
      now = e.time.count_ps();
    }
    ASSERT_EQ(q.size(), reference.size());
  }
  ASSERT_TRUE(q.is_valid());
  std::vector<uint64_t> rest;
  for (const QueueEntry& e : reference) {
    rest.push_back(e.seq());
  }
  EXPECT_EQ(drain(q), rest);
}

TYPED_TEST(PriorityQueueTest, MatchesSortWhenPushesGoBackInTime) {
  // Not how the event queue uses it, but order must not depend on it.
  std::mt19937_64 rng(7);
  TypeParam q;
  std::vector<QueueEntry> all;
  for (uint64_t seq = 0; seq < 5'000; ++seq) {
    const QueueEntry e = QueueEntry::make(Time::ps(static_cast<int64_t>(rng() % 1'000)),
                                          static_cast<int32_t>(rng() % 5), seq, {});
    q.push(e);
    all.push_back(e);
    if (seq % 1'000 == 999) {  // pop a little, then push earlier keys again
      std::vector<QueueEntry> kept;
      for (int i = 0; i < 100; ++i) {
        kept.push_back(q.pop());
      }
      for (const QueueEntry& k : kept) {
        q.push(k);
      }
    }
  }
  EXPECT_TRUE(q.is_valid());
  EXPECT_EQ(drain(q), sorted_seqs(all));
}

TYPED_TEST(PriorityQueueTest, HandlesTheExtremesOfTimePriorityAndSequence) {
  TypeParam q;
  const int lowest = kMinPriority;
  const int highest = kMaxPriority;
  q.push(QueueEntry::make(Time::max(), 0, 0, {}));
  q.push(QueueEntry::make(Time::max() - Time::ps(1), highest, 1, {}));
  q.push(QueueEntry::make(Time::max(), lowest, 2, {}));
  q.push(QueueEntry::make(Time::zero(), highest, 3, {}));
  q.push(QueueEntry::make(Time::ps(int64_t{1} << 62), 0, 4, {}));
  q.push(QueueEntry::make(Time::ps(int64_t{1} << 62), lowest, kMaxSequence, {}));
  q.push(QueueEntry::make(Time::ps(int64_t{1} << 62), highest, 5, {}));
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{3, kMaxSequence, 4, 5, 1, 2, 0}));
}

TYPED_TEST(PriorityQueueTest, ManyEntriesAtOneTime) {
  // A burst: only priority and sequence order them.
  TypeParam q;
  std::vector<QueueEntry> all;
  for (uint64_t seq = 0; seq < 3'000; ++seq) {
    const QueueEntry e = QueueEntry::make(Time::us(1), static_cast<int32_t>(seq % 4), seq, {});
    q.push(e);
    all.push_back(e);
  }
  EXPECT_EQ(drain(q), sorted_seqs(all));
}

TYPED_TEST(PriorityQueueTest, SequenceBreaksTiesWhateverThePushOrder) {
  // One priority, a few times within 4096 ps and past 4096 (one radix bucket
  // of level 1, so the radix heap sorts it into its run: by comparisons with
  // 200 entries, by counting with 600), sequences pushed falling and then
  // shuffled: not how the event queue pushes, but the order must not depend
  // on it.
  for (const std::size_t n : {std::size_t{200}, std::size_t{600}}) {
    ASSERT_EQ(n < RadixHeap::kCountingSortSize, n == 200);
    std::mt19937_64 rng(11);
    std::vector<uint64_t> seqs(n);
    for (uint64_t i = 0; i < seqs.size(); ++i) {
      seqs[i] = seqs.size() - i;
    }
    for (int round = 0; round < 2; ++round) {
      TypeParam q;
      std::vector<QueueEntry> all;
      for (std::size_t i = 0; i < seqs.size(); ++i) {
        const QueueEntry e =
            QueueEntry::make(Time::ps(5'000 + static_cast<int64_t>(i % 3) * 7), 1, seqs[i], {});
        q.push(e);
        all.push_back(e);
      }
      EXPECT_EQ(drain(q), sorted_seqs(all));
      std::shuffle(seqs.begin(), seqs.end(), rng);
    }
  }
}

TYPED_TEST(PriorityQueueTest, RemoveIfKeepsTheRestInOrder) {
  std::mt19937_64 rng(3);
  TypeParam q;
  std::vector<QueueEntry> kept;
  for (uint64_t seq = 0; seq < 4'000; ++seq) {
    const QueueEntry e =
        QueueEntry::make(Time::ps(static_cast<int64_t>(rng() % 100'000'000)), 0, seq, {});
    q.push(e);
    if (seq % 3 != 0) {
      kept.push_back(e);
    }
  }
  for (int i = 0; i < 10; ++i) {  // move some entries into the radix heap's near heap
    const QueueEntry e = q.pop();
    q.push(e);
  }
  EXPECT_EQ(q.remove_if([](const QueueEntry& e) { return e.seq() % 3 == 0; }),
            4'000u - kept.size());
  EXPECT_EQ(q.size(), kept.size());
  EXPECT_TRUE(q.is_valid());
  EXPECT_EQ(drain(q), sorted_seqs(kept));
}

TEST(RadixHeapTest, MemoryFollowsTheLiveEntries) {
  // A long hold-model run must not accumulate bucket storage.
  std::mt19937_64 rng(11);
  RadixHeap q;
  uint64_t seq = 0;
  for (int i = 0; i < 10'000; ++i) {
    q.push(QueueEntry::make(Time::ps(static_cast<int64_t>(rng() % 1'000'000)), 0, seq++, {}));
  }
  for (int i = 0; i < 500'000; ++i) {
    const QueueEntry e = q.pop();
    q.push(
        QueueEntry::make(e.time + Time::ps(static_cast<int64_t>(rng() % 1'000'000)), 0, seq++, {}));
  }
  EXPECT_TRUE(q.is_valid());
  EXPECT_EQ(q.size(), 10'000u);
  // Full chunks for the entries plus at most one partial chunk per bucket in use.
  EXPECT_LT(q.capacity(), 10'000u + 600u * RadixHeap::kChunkSize);
}

}  // namespace
}  // namespace podsim::sim
