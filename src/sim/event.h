// The small value types shared by the event queue and the simulation: what an
// event targets, how it is named for cancellation, and what the queue hands back.
//
// An event is not an object with behaviour; it is a key (time, priority,
// insertion sequence) plus a target (an EventHandler and a 64-bit payload).
// Components implement EventHandler once and tell their events apart by the
// payload, so scheduling never allocates per event.
#pragma once

#include <cstdint>
#include <limits>

#include "sim/time.h"

namespace podsim::sim {

class Simulation;

// Receives the events a component schedules for itself. `payload` is whatever the
// component passed when scheduling (an index, a packed id, ...).
//
// The destructor is protected and non-virtual: the kernel never owns or deletes
// a handler; the component that implements it does. Implementations should be
// `final` (so -Wnon-virtual-dtor stays quiet) and must outlive their events.
class EventHandler {
 public:
  virtual void handle(Simulation& sim, uint64_t payload) = 0;
  // A hint given for a pending (not cancelled) event while an earlier one
  // runs: start loading (__builtin_prefetch) what handle(payload) will read,
  // so its cache misses overlap other events' work. The kernel gives it
  // Simulation::kFirstHintAhead events ahead where its queue has the events
  // that far ahead at hand, else while the event before runs. It must change
  // no state; the default does nothing.
  virtual void prefetch(uint64_t payload) const { static_cast<void>(payload); }
  // A second hint, Simulation::kSecondHintAhead events ahead, for an event
  // whose prefetch() came in an earlier event: it may read what prefetch()
  // loaded, to prefetch what that points to (a delivered transfer's
  // receiver state). The same rules; the default does nothing.
  virtual void prefetch_indirect(uint64_t payload) const { static_cast<void>(payload); }

 protected:
  EventHandler() = default;
  EventHandler(const EventHandler&) = default;
  EventHandler& operator=(const EventHandler&) = default;
  ~EventHandler() = default;
};

// The priorities an event may have: lower runs first among events at the same
// time. 16 bits, so that the queue's key packs into two words (queue_entry.h).
// kLastPriority runs after every other event at its time; kLastPriority - 1
// just before those.
inline constexpr int kMinPriority = -(1 << 15);
inline constexpr int kMaxPriority = (1 << 15) - 1;
inline constexpr int kLastPriority = kMaxPriority;

// Insertion sequences of one queue fit in 48 bits: 2.8e14 events, 130 days of
// scheduling at 25e6 events per second. Scheduling the next one throws.
inline constexpr uint64_t kMaxSequence = (uint64_t{1} << 48) - 1;

// Where an event goes when it fires.
struct EventTarget {
  EventHandler* handler = nullptr;
  uint64_t payload = 0;

  friend bool operator==(const EventTarget&, const EventTarget&) = default;
};

// Names one event scheduled as cancellable, so it can be cancelled. `seq` is the event's
// insertion sequence, unique within its queue, so an id can never be confused
// with a later event that reuses the same slot (no generation wrap-around).
// A default-constructed id names no event.
struct EventId {
  static constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

  uint32_t slot = kNoSlot;
  uint64_t seq = 0;

  constexpr bool valid() const { return slot != kNoSlot; }
  friend bool operator==(const EventId&, const EventId&) = default;
};

// An event as the queue returns it: its full ordering key and its target.
struct Event {
  Time time;
  int priority = 0;  // lower runs first among events at the same time
  uint64_t seq = 0;  // insertion order; breaks every remaining tie
  EventTarget target;
};

}  // namespace podsim::sim
