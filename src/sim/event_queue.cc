#include "sim/event_queue.h"

#include <cassert>
#include <stdexcept>
#include <string>

namespace podsim::sim {

EventQueue::EventQueue(Options options) : options_(options) {}

void EventQueue::SlotMarker::handle(Simulation&, uint64_t payload) {
  throw std::logic_error("podsim::sim::EventQueue: the slot marker of slot " +
                         std::to_string(payload) + " ran as an event");
}

void EventQueue::reject(Time t, int priority, EventTarget target) const {
  if (target.handler == nullptr) {
    throw std::invalid_argument("podsim::sim::EventQueue: event without a handler");
  }
  if (priority < kMinPriority || priority > kMaxPriority) {
    throw std::invalid_argument("podsim::sim::EventQueue: priority " + std::to_string(priority) +
                                " is outside [" + std::to_string(kMinPriority) + ", " +
                                std::to_string(kMaxPriority) + "]");
  }
  if (next_seq_ > kMaxSequence) {
    throw std::length_error("podsim::sim::EventQueue: more than 2^48 events scheduled");
  }
  throw std::logic_error("podsim::sim::EventQueue: event at " + t.to_string() +
                         " is before the current time " + now_.to_string());
}

std::optional<EventTarget> EventQueue::cancel(EventId id) {
  if (!slots_.matches(id)) {
    return std::nullopt;
  }
  slots_.clear_pending(id.slot);  // its entry stays queued until popped or purged
  --live_;
  ++dead_;
  const EventTarget target = slots_.target(id.slot);  // a copy: a purge frees the slot
  if (dead_ > kPurgeThreshold && dead_ > live_) {
    purge_dead();
  }
  debug_check();
  return target;
}

bool EventQueue::is_pending(EventId id) const {
  return slots_.matches(id);
}

void EventQueue::advance_to(Time t) {
  if (t < now_) {
    throw std::logic_error("podsim::sim::EventQueue: cannot go back from " + now_.to_string() +
                           " to " + t.to_string());
  }
  for (;;) {
    const QueueEntry* next = peek();
    if (next == nullptr || next->time >= t) {
      break;
    }
    if (!is_dead(*next)) {
      throw std::logic_error("podsim::sim::EventQueue: cannot advance to " + t.to_string() +
                             " past a pending event at " + next->time.to_string());
    }
    slots_.release(slot_of(take()));
    --dead_;
  }
  now_ = t;
  debug_check();
}

void EventQueue::purge_dead() {
  const auto drop = [this](const QueueEntry& e) {
    if (!is_dead(e)) {
      return false;
    }
    slots_.release(slot_of(e));
    return true;
  };
  next_ = nullptr;  // entries move
  const std::size_t dropped = heap_.remove_if(drop) + fifo_.remove_if(drop);
  dead_ -= dropped;
  taken_ += dropped;
  assert(dead_ == 0);
}

bool EventQueue::is_valid() const {
  if (!heap_.is_valid()) {
    return false;
  }
  std::size_t live = 0;
  std::size_t dead = 0;
  std::size_t with_slot = 0;
  bool entries_ok = true;
  const auto check = [&](const QueueEntry& e) {
    if (e.time < now_ || e.target.handler == nullptr || e.seq() >= next_seq_) {
      entries_ok = false;
      return;
    }
    if (!has_slot(e)) {
      ++live;
      return;
    }
    const uint32_t slot = slot_of(e);
    if (e.target.payload >= slots_.capacity() || !slots_.is_occupied(slot) ||
        slots_.seq(slot) != e.seq() || slots_.target(slot).handler == nullptr) {
      entries_ok = false;
      return;
    }
    ++with_slot;
    ++(is_dead(e) ? dead : live);
  };
  heap_.for_each(check);
  for (std::size_t i = 0; i < fifo_.size(); ++i) {
    check(fifo_[i]);
    if (fifo_[i].priority() != 0 || (i > 0 && !QueueEntryLess{}(fifo_[i - 1], fifo_[i]))) {
      return false;
    }
  }
  // Every occupied slot belongs to exactly one entry (sequences are unique).
  return entries_ok && live == live_ && dead == dead_ && with_slot == slots_.occupied();
}

// Full validation is O(n), so it runs only while the queue is small; large
// queues are validated explicitly by the stress tests.
void EventQueue::validate_if_small() const {
  constexpr std::size_t kMaxCheckedEntries = 256;
  if (heap_.size() + fifo_.size() <= kMaxCheckedEntries) {
    assert(is_valid());
  }
}

}  // namespace podsim::sim
