// What the event queue's priority queues hold: the full ordering key of an event,
// its target, and the slot that tracks whether it is still pending. 40 bytes,
// trivially copyable.
//
// The target is carried in the entry, although the slot also records it (for
// cancel), so that popping an event never reads the slot array: with 1e6 pending
// events that read was a cache miss per event and halved throughput.
#pragma once

#include <cstdint>

#include "sim/event.h"
#include "sim/time.h"

namespace podsim::sim {

struct QueueEntry {
  Time time;
  uint64_t seq = 0;  // insertion sequence, unique per queue
  int32_t priority = 0;
  uint32_t slot = 0;
  EventTarget target;
};

// The total order of events: time, then priority (lower first), then insertion
// sequence. Sequences are unique, so no two entries of a queue compare equal and
// the order never depends on how a priority queue breaks ties.
struct QueueEntryLess {
  bool operator()(const QueueEntry& a, const QueueEntry& b) const {
    if (a.time != b.time) {
      return a.time < b.time;
    }
    if (a.priority != b.priority) {
      return a.priority < b.priority;
    }
    return a.seq < b.seq;
  }
};

}  // namespace podsim::sim
