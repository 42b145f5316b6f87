#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace podsim::sim {
namespace {

// The queue never calls handlers; any address serves as a target.
class NullHandler final : public EventHandler {
 public:
  void handle(Simulation&, uint64_t) override {}
};

class EventQueueTest : public ::testing::Test {
 protected:
  EventTarget target(uint64_t payload) { return EventTarget{&handler_, payload}; }

  // Pops everything and returns the payloads in order.
  static std::vector<uint64_t> drain(EventQueue& q) {
    std::vector<uint64_t> payloads;
    while (const std::optional<Event> e = q.pop()) {
      payloads.push_back(e->target.payload);
    }
    return payloads;
  }

  NullHandler handler_;
};

TEST_F(EventQueueTest, PopReturnsTheFullKeyAndTarget) {
  EventQueue q;
  q.push(Time::ns(2), 3, target(42));
  const std::optional<Event> e = q.pop();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->time, Time::ns(2));
  EXPECT_EQ(e->priority, 3);
  EXPECT_EQ(e->seq, 0u);
  EXPECT_EQ(e->target.handler, &handler_);
  EXPECT_EQ(e->target.payload, 42u);
  EXPECT_EQ(q.now(), Time::ns(2));
  EXPECT_FALSE(q.pop().has_value());
}

TEST_F(EventQueueTest, OrdersByTimePriorityAndInsertion) {
  EventQueue q;
  q.push(Time::ps(20), 0, target(0));
  q.push(Time::ps(10), 5, target(1));
  q.push(Time::ps(10), -5, target(2));
  q.push(Time::ps(10), 5, target(3));
  q.push(Time::ps(0), 0, target(4));  // at now() with priority 0: the FIFO path
  q.push(Time::ps(0), -1, target(5));
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{5, 4, 2, 1, 3, 0}));
}

TEST_F(EventQueueTest, FifoAndHeapEntriesAtTheSameTimeInterleaveByKey) {
  EventQueue q;
  q.push(Time::ps(5), 0, target(0));       // heap (now is 0)
  q.push(Time::ps(5), 1, target(1));       // heap
  q.push(Time::ps(5), 0, target(2));       // heap
  q.push(Time::ps(7), 0, target(99));      // heap
  ASSERT_EQ(q.pop()->target.payload, 0u);  // now is 5
  q.push(Time::ps(5), 0, target(3));       // FIFO: after 2 (larger sequence), before 1
  q.push(Time::ps(5), -1, target(4));      // heap: before everything left at 5
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{4, 2, 3, 1, 99}));
}

TEST_F(EventQueueTest, PushBeforeNowThrows) {
  EventQueue q;
  q.push(Time::ps(10), 0, target(0));
  q.pop();
  EXPECT_THROW(q.push(Time::ps(9), 0, target(1)), std::logic_error);
  EXPECT_THROW(q.push(Time::ps(10), 0, EventTarget{}), std::invalid_argument);
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.is_valid());
}

TEST_F(EventQueueTest, PrioritiesOutsideSixteenBitsAreRejected) {
  EventQueue q;
  EXPECT_THROW(q.push(Time::ps(1), kMaxPriority + 1, target(0)), std::invalid_argument);
  EXPECT_THROW(q.push_cancellable(Time::ps(1), kMinPriority - 1, target(0)), std::invalid_argument);
  EXPECT_TRUE(q.empty());
  // The extremes are accepted and keep their order at one time.
  q.push(Time::ps(1), kMaxPriority, target(0));
  q.push_cancellable(Time::ps(1), kMinPriority, target(1));
  q.push(Time::ps(1), 0, target(2));
  EXPECT_TRUE(q.is_valid());
  std::vector<int> priorities;
  while (const std::optional<Event> e = q.pop()) {
    priorities.push_back(e->priority);
  }
  EXPECT_EQ(priorities, (std::vector<int>{kMinPriority, 0, kMaxPriority}));
}

TEST_F(EventQueueTest, CancellableAndPlainEventsInterleaveByKey) {
  EventQueue q;
  q.push(Time::ps(3), 0, target(0));
  const EventId a = q.push_cancellable(Time::ps(2), 0, target(1));
  q.push(Time::ps(2), 0, target(2));
  q.push_cancellable(Time::ps(1), 0, target(3));
  // The hint names the real target of a cancellable event, not the marker.
  ASSERT_NE(q.next_target(), nullptr);
  EXPECT_EQ(q.next_target()->handler, &handler_);
  EXPECT_EQ(q.next_target()->payload, 3u);
  EXPECT_TRUE(q.is_valid());
  const std::optional<Event> first = q.pop();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->target.handler, &handler_);
  EXPECT_EQ(first->seq, 3u);
  EXPECT_TRUE(q.cancel(a).has_value());
  EXPECT_EQ(q.next_target(), nullptr);  // the cancelled event is next
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{2, 0}));
}

// The look ahead names the entry after the next one where the queue keeps
// it at hand (here the same-time FIFO), never a cancelled one.
TEST_F(EventQueueTest, TargetAheadNamesTheFollowingLiveEntry) {
  EventQueue q;
  q.push(Time::zero(), 0, target(0));
  const EventId second = q.push_cancellable(Time::zero(), 0, target(1));
  q.push(Time::zero(), 0, target(2));
  ASSERT_NE(q.next_target(), nullptr);
  const EventTarget* after = q.target_ahead(1);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->handler, &handler_);  // the real target, not the slot marker
  EXPECT_EQ(after->payload, 1u);
  ASSERT_TRUE(q.cancel(second).has_value());
  ASSERT_NE(q.next_target(), nullptr);
  EXPECT_EQ(q.target_ahead(1), nullptr);
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{0, 2}));
}

// Without the FIFO, many entries at one time reach the radix heap's sorted
// run, and the look ahead walks it.
TEST_F(EventQueueTest, TargetAheadWalksTheSortedRun) {
  EventQueue q(EventQueue::Options{.same_time_fifo = false});
  for (uint64_t i = 0; i < 20; ++i) {
    q.push(Time::ps(5'000), 0, target(i));
  }
  for (uint64_t i = 0; i + 1 < 20; ++i) {
    ASSERT_NE(q.next_target(), nullptr);
    for (uint64_t k = 1; k < 4; ++k) {
      const EventTarget* ahead = q.target_ahead(k);
      if (i + k < 20) {
        ASSERT_NE(ahead, nullptr) << i << " + " << k;
        EXPECT_EQ(ahead->payload, i + k);
      } else {
        EXPECT_EQ(ahead, nullptr) << i << " + " << k;  // past the last one
      }
    }
    ASSERT_TRUE(q.pop().has_value());
  }
  ASSERT_NE(q.next_target(), nullptr);
  EXPECT_EQ(q.target_ahead(1), nullptr);
}

TEST_F(EventQueueTest, PopRespectsTheLimit) {
  EventQueue q;
  q.push(Time::ps(10), 0, target(0));
  q.push(Time::ps(20), 0, target(1));
  EXPECT_FALSE(q.pop(Time::ps(9)).has_value());
  EXPECT_EQ(q.now(), Time::zero());
  EXPECT_EQ(q.pop(Time::ps(10))->target.payload, 0u);  // the limit is inclusive
  EXPECT_FALSE(q.pop(Time::ps(19)).has_value());
  EXPECT_EQ(q.size(), 1u);
  // Events between now and a peeked-at later event still come out in order.
  q.push(Time::ps(15), 0, target(2));
  q.push(Time::ps(12), 0, target(3));
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{3, 2, 1}));
}

TEST_F(EventQueueTest, CancelIsOneShotAndSkipsTheEvent) {
  EventQueue q;
  const EventId a = q.push_cancellable(Time::ps(1), 0, target(0));
  const EventId b = q.push_cancellable(Time::ps(2), 0, target(1));
  const EventId c = q.push_cancellable(Time::ps(0), 0, target(2));  // FIFO path
  EXPECT_TRUE(q.is_pending(b));
  const std::optional<EventTarget> cancelled = q.cancel(b);
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled->payload, 1u);
  EXPECT_FALSE(q.is_pending(b));
  EXPECT_FALSE(q.cancel(b).has_value());
  EXPECT_TRUE(q.cancel(c).has_value());
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.queued_entries(), 3u);  // cancelled entries leave when they surface
  EXPECT_TRUE(q.is_valid());
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{0}));
  EXPECT_FALSE(q.cancel(a).has_value());  // already popped
  EXPECT_FALSE(q.cancel(EventId{}).has_value());
  EXPECT_FALSE(q.cancel(EventId{12345, 0}).has_value());
  EXPECT_EQ(q.queued_entries(), 0u);
}

TEST_F(EventQueueTest, StaleIdDoesNotCancelTheSlotsNextEvent) {
  EventQueue q;
  const EventId first = q.push_cancellable(Time::ps(1), 0, target(0));
  q.pop();
  const EventId second = q.push_cancellable(Time::ps(2), 0, target(1));
  // Whether or not the slot was reused, the old id must not reach the new event.
  EXPECT_FALSE(q.cancel(first).has_value());
  EXPECT_TRUE(q.is_pending(second));
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{1}));
}

TEST_F(EventQueueTest, MassCancellationPurgesDeadEntries) {
  EventQueue q;
  std::vector<EventId> ids;
  for (uint64_t i = 0; i < 4'000; ++i) {
    ids.push_back(
        q.push_cancellable(Time::ps(static_cast<int64_t>((i * 7'919) % 4'001)), 0, target(i)));
  }
  std::vector<uint64_t> kept;
  for (uint64_t i = 0; i < ids.size(); ++i) {
    if (i % 4 == 0) {
      kept.push_back(i);
    } else {
      ASSERT_TRUE(q.cancel(ids[i]).has_value());
    }
  }
  EXPECT_EQ(q.size(), 1'000u);
  // Dead entries outnumbered live ones past the threshold, so a purge ran.
  EXPECT_LT(q.queued_entries(), 1'000u + 2 * EventQueue::kPurgeThreshold);
  EXPECT_TRUE(q.is_valid());
  std::sort(kept.begin(), kept.end(),
            [](uint64_t a, uint64_t b) { return (a * 7'919) % 4'001 < (b * 7'919) % 4'001; });
  EXPECT_EQ(drain(q), kept);
}

TEST_F(EventQueueTest, AdvanceToMovesTheClockOnly) {
  EventQueue q;
  q.push(Time::ps(50), 0, target(0));
  const EventId dead = q.push_cancellable(Time::ps(20), 0, target(1));
  q.cancel(dead);
  q.advance_to(Time::ps(30));  // passes the cancelled entry at 20
  EXPECT_EQ(q.now(), Time::ps(30));
  EXPECT_THROW(q.advance_to(Time::ps(29)), std::logic_error);
  EXPECT_THROW(q.advance_to(Time::ps(51)), std::logic_error);  // would skip a live event
  EXPECT_EQ(q.now(), Time::ps(30));
  q.push(Time::ps(30), 0, target(2));  // at the new now(): FIFO path
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{2, 0}));
}

// next_target() keeps its answer for the next pop(); a push that may come
// before that answer must drop it. Here the radix heap is empty and now() is
// past its bound, so the event at now() with priority -1 goes into a radix
// bucket, yet runs before the FIFO's front.
TEST_F(EventQueueTest, APushAtNowBeforeTheFifoFrontOvertakesThePeekedEntry) {
  EventQueue q;
  q.advance_to(Time::ps(1'000));
  q.push(Time::ps(1'000), 0, target(0));  // FIFO
  ASSERT_NE(q.next_target(), nullptr);
  EXPECT_EQ(q.next_target()->payload, 0u);
  q.push(Time::ps(1'000), -1, target(1));
  q.push(Time::ps(2'000), 0, target(2));  // a bucket, after both
  EXPECT_EQ(q.next_target()->payload, 1u);
  EXPECT_EQ(drain(q), (std::vector<uint64_t>{1, 0, 2}));
}

// Random pushes, pops, cancels and clock advances against a std::map of the full
// key, with and without the FIFO fast path: the pop order must be identical.
// next_target() is asked at random too: it keeps its answer for the next pop,
// and a push before that pop must drop the answer when it may change it.
class EventQueueRandomTest : public EventQueueTest, public ::testing::WithParamInterface<bool> {};

TEST_P(EventQueueRandomTest, MatchesAnOrderedMapReference) {
  using RefKey = std::tuple<int64_t, int, uint64_t>;  // (time, priority, push count)
  EventQueue q(EventQueue::Options{.same_time_fifo = GetParam()});
  std::map<RefKey, uint64_t> reference;  // key -> payload
  std::vector<std::pair<EventId, RefKey>> issued;
  std::mt19937_64 rng(2024);
  int64_t now = 0;
  uint64_t pushes = 0;
  std::vector<RefKey> key_of;  // by payload
  uint64_t after_hints = 0;
  for (int step = 0; step < 60'000; ++step) {
    if (rng() % 2 == 0) {
      const EventTarget* next = q.next_target();  // null if the next entry is cancelled
      ASSERT_TRUE(next == nullptr || next->payload == reference.begin()->second);
      // The look ahead, when it answers, names another event still pending.
      const EventTarget* after = next == nullptr ? nullptr : q.target_ahead(1 + rng() % 4);
      if (after != nullptr) {
        ++after_hints;
        ASSERT_LT(after->payload, key_of.size());
        ASSERT_NE(after->payload, next->payload);
        ASSERT_EQ(reference.count(key_of[after->payload]), 1u);
      }
    }
    const uint64_t op = rng() % 11;
    if (op < 5) {
      // Many events at now() (FIFO candidates), ties, and a few far ones.
      const uint64_t kind = rng() % 4;
      const int64_t delay = kind == 0   ? 0
                            : kind == 1 ? static_cast<int64_t>(rng() % 4)
                            : kind == 2 ? static_cast<int64_t>(rng() % 1'000)
                                        : static_cast<int64_t>(rng() % 1'000'000'000);
      const int priority = rng() % 4 == 0 ? static_cast<int>(rng() % 3) - 1 : 0;
      const RefKey key{now + delay, priority, pushes};
      // Half the events cancellable (slot marker entries), half plain.
      if (rng() % 2 == 0) {
        issued.emplace_back(q.push_cancellable(Time::ps(now + delay), priority, target(pushes)),
                            key);
      } else {
        q.push(Time::ps(now + delay), priority, target(pushes));
      }
      reference.emplace(key, pushes);
      key_of.push_back(key);
      ++pushes;
    } else if (op < 8) {
      const std::optional<Event> e = q.pop();
      ASSERT_EQ(e.has_value(), !reference.empty());
      if (e) {
        const auto first = reference.begin();
        ASSERT_EQ(e->target.payload, first->second);
        ASSERT_EQ(e->time.count_ps(), std::get<0>(first->first));
        ASSERT_EQ(e->priority, std::get<1>(first->first));
        now = e->time.count_ps();
        reference.erase(first);
      }
    } else if (op < 10 && !issued.empty()) {
      const auto& [id, key] = issued[rng() % issued.size()];
      const bool was_pending = reference.erase(key) == 1;
      ASSERT_EQ(q.cancel(id).has_value(), was_pending);
    } else if (op == 10) {
      // Past the radix heap's bound at times, so that events at now() with a
      // negative priority go into buckets, ahead of the FIFO's entries.
      int64_t to = now + static_cast<int64_t>(rng() % 2'000);
      if (!reference.empty()) {
        to = std::min(to, std::get<0>(reference.begin()->first));
      }
      q.advance_to(Time::ps(to));
      now = to;
    }
    if (step % 5'000 == 0) {
      ASSERT_TRUE(q.is_valid());
      ASSERT_EQ(q.size(), reference.size());
    }
  }
  if (GetParam()) {
    EXPECT_GT(after_hints, 1'000u);  // the FIFO's second entry is at hand
  }
  ASSERT_TRUE(q.is_valid());
  for (const auto& [key, payload] : reference) {
    const std::optional<Event> e = q.pop();
    ASSERT_TRUE(e.has_value());
    ASSERT_EQ(e->target.payload, payload);
  }
  EXPECT_FALSE(q.pop().has_value());
}

INSTANTIATE_TEST_SUITE_P(FastPath, EventQueueRandomTest, ::testing::Bool(),
                         [](const auto& param_info) {
                           return param_info.param ? "fifo_on" : "fifo_off";
                         });

}  // namespace
}  // namespace podsim::sim
