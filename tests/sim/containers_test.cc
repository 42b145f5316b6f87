// The small containers under the event queue: RingQueue (the same-time FIFO)
// and ChunkedBags (the radix heap's bucket storage).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/chunked_bags.h"
#include "sim/ring_queue.h"

namespace podsim::sim {
namespace {

TEST(RingQueueTest, IsFifoAcrossWrapAroundAndGrowth) {
  RingQueue<int> q;
  std::vector<int> popped;
  int next = 0;
  // Interleave pushes and pops so the head wraps around several times while
  // the buffer grows from 16 to 64 slots.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) {
      q.push_back(next++);
    }
    for (int i = 0; i < round % 5 && !q.empty(); ++i) {
      popped.push_back(q.pop_front());
    }
  }
  while (!q.empty()) {
    popped.push_back(q.pop_front());
  }
  ASSERT_EQ(static_cast<int>(popped.size()), next);
  for (int i = 0; i < next; ++i) {
    EXPECT_EQ(popped[i], i);
  }
}

TEST(RingQueueTest, FrontBackIndexAndRemoveIf) {
  RingQueue<int> q;
  for (int i = 0; i < 20; ++i) {
    q.push_back(i);
  }
  q.pop_front();  // head is no longer at index 0
  EXPECT_EQ(q.front(), 1);
  EXPECT_EQ(q.back(), 19);
  EXPECT_EQ(q[3], 4);
  EXPECT_EQ(q.remove_if([](int x) { return x % 3 == 0; }), 6u);  // 3, 6, ..., 18
  std::vector<int> rest;
  while (!q.empty()) {
    rest.push_back(q.pop_front());
  }
  EXPECT_EQ(rest, (std::vector<int>{1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19}));
}

TEST(ChunkedBagsTest, BagsHoldTheirOwnElements) {
  ChunkedBags<int, 4> bags(3);
  for (std::size_t b = 0; b < 3; ++b) {
    bags.start(b);
  }
  for (int i = 0; i < 10; ++i) {
    bags.push(static_cast<std::size_t>(i % 3), i);
  }
  EXPECT_EQ(bags.size(0), 4u);
  EXPECT_EQ(bags.size(1), 3u);
  EXPECT_EQ(bags.size(2), 3u);
  std::vector<int> seen;
  bags.for_each(0, [&](int x) { seen.push_back(x); });
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 3, 6, 9}));
}

TEST(ChunkedBagsTest, DrainEmptiesAndMayPushElsewhere) {
  ChunkedBags<int, 4> bags(2);
  bags.start(0);
  bags.start(1);
  for (int i = 0; i < 11; ++i) {  // three chunks, the last one partly filled
    bags.push(0, i);
  }
  std::vector<int> drained;
  bags.drain(0, [&](int x) {
    drained.push_back(x);
    bags.push(1, x * 10);  // may reuse the chunks being drained
  });
  EXPECT_TRUE(bags.empty(0));
  std::sort(drained.begin(), drained.end());
  EXPECT_EQ(drained, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  std::vector<int> moved;
  bags.for_each(1, [&](int x) { moved.push_back(x); });
  std::sort(moved.begin(), moved.end());
  EXPECT_EQ(moved, (std::vector<int>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
}

TEST(ChunkedBagsTest, DrainedChunksAreReused) {
  ChunkedBags<int, 8> bags(4);
  for (int round = 0; round < 100; ++round) {
    const auto bag = static_cast<std::size_t>(round % 4);
    bags.start(bag);
    for (int i = 0; i < 40; ++i) {
      bags.push(bag, i);
    }
    bags.drain(bag, [](int) {});
  }
  // One bag of 40 at a time needs 5 chunks; nothing accumulates across rounds.
  EXPECT_EQ(bags.capacity(), 5u * 8u);
}

}  // namespace
}  // namespace podsim::sim
