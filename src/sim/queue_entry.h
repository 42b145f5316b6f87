// What the event queue's priority queues hold: the full ordering key of an event
// and its target. 32 bytes, trivially copyable.
//
// The key is two words: the time, and an `order` word that packs the priority
// (biased to be unsigned, in the top 16 bits) above the insertion sequence (the
// low 48 bits). Comparing order words compares priority, then sequence, so the
// total order is two integer comparisons. The 40-byte layout this replaced
// (separate sequence, priority and slot) moved 25% more bytes through the radix
// heap's buckets for every event.
//
// The target is carried in the entry, so that popping an event never reads the
// slot array: with 1e6 pending events that read was a cache miss per event and
// halved throughput. A cancellable event's entry targets the event queue's
// slot marker instead (event_queue.h): its real target is in its slot.
#pragma once

#include <cstdint>

#include "sim/event.h"
#include "sim/time.h"

namespace podsim::sim {

struct QueueEntry {
  static constexpr int kSequenceBits = 48;
  static constexpr uint64_t kSequenceMask = (uint64_t{1} << kSequenceBits) - 1;

  Time time;
  uint64_t order = 0;  // (priority - kMinPriority) << 48 | sequence
  EventTarget target;

  // Preconditions: kMinPriority <= priority <= kMaxPriority, seq <= kMaxSequence.
  static constexpr uint64_t make_order(int priority, uint64_t seq) {
    return static_cast<uint64_t>(priority - kMinPriority) << kSequenceBits | seq;
  }
  static constexpr QueueEntry make(Time t, int priority, uint64_t seq, EventTarget target) {
    return QueueEntry{t, make_order(priority, seq), target};
  }

  constexpr int priority() const { return static_cast<int>(order >> kSequenceBits) + kMinPriority; }
  constexpr uint64_t seq() const { return order & kSequenceMask; }
};
static_assert(sizeof(QueueEntry) == 32);
static_assert(kMaxSequence == QueueEntry::kSequenceMask);
static_assert(kMaxPriority - kMinPriority < (1 << (64 - QueueEntry::kSequenceBits)));

// The total order of events: time, then priority (lower first), then insertion
// sequence. Sequences are unique, so no two entries of a queue compare equal and
// the order never depends on how a priority queue breaks ties.
struct QueueEntryLess {
  bool operator()(const QueueEntry& a, const QueueEntry& b) const {
    if (a.time != b.time) {
      return a.time < b.time;
    }
    return a.order < b.order;
  }
};

}  // namespace podsim::sim
