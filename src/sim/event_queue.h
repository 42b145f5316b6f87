// The pending-event set of one simulation: a monotone priority queue of events
// ordered by the total key (time, priority, insertion sequence). It knows
// nothing of chips, networks or even of how events are executed: it stores
// EventTargets and hands them back in key order.
//
// Implementation (cf. ns-3's Scheduler documentation)
//
//   entries  32-byte QueueEntry values {time, priority and sequence, target}
//            in a RadixHeap: a small near heap in front of 4096-way radix buckets
//            (radix_heap.h says why not a plain binary or 4-ary heap).
//   slots    only a cancellable event (push_cancellable) takes a slot
//            (SlotTable), which an EventId {slot, sequence} finds directly: this
//            is what makes cancel O(1). The slot records the event's sequence and
//            target; its entry targets the queue's private slot marker with the
//            slot as payload. A bit in a dense bitmap says whether the slot's
//            event is still pending; pop() reads it and the slot's target.
//            Entries pop in an order unrelated to their slots', so pop()
//            prefetches the slot of the entry a few places ahead in the radix
//            heap's sorted run. Most events are never cancelled (the hold
//            benchmark's, the executor's, the packet model's): they take no
//            slot, and push and pop touch nothing but the entry. Giving every
//            event a slot cost a 24-byte slot write, two bitmap updates and an
//            8-byte-larger entry per event: the hold benchmark at 1e6 pending
//            ran at 20.5-21.2e6 events/s that way against 25.1-25.4e6 with
//            slots for the cancellable only (medians, src/sim/README.md). A
//            cancellable event's pop now reads its slot's target too, a
//            second random line: BM_HoldCancellable runs at 15-17e6.
//   fifo     events scheduled at exactly now() with the default priority 0 go to
//            a ring buffer instead of the radix heap. Its entries are already
//            sorted by key (same time and priority, rising sequence), and pop()
//            takes the smaller of the heap's top and the FIFO's front by the
//            full key, so the order is exactly the order without the fast path
//            (tested against a reference).
//
//   push      O(1) (into the FIFO, the near heap or a bucket)
//   pop       O(1) amortised; cancelled entries are dropped when they surface
//   cancel    O(1): the pending bit is cleared and the entry dropped later
//             ("lazy deletion"). When dead entries outnumber live ones (and
//             there are more than kPurgeThreshold), one O(n) pass removes them
//             all, so memory stays O(live events) and cancel O(1) amortised.
//   memory    32 bytes per queued entry (live or dead) + for cancellable ones 24
//             bytes and 2 bits per slot (at most 16/7 slots per such entry at
//             the peak), plus chunk and vector slack.
//
// Not thread-safe: a queue belongs to one simulation, driven by one thread.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/event.h"
#include "sim/queue_entry.h"
#include "sim/radix_heap.h"
#include "sim/ring_queue.h"
#include "sim/slot_table.h"
#include "sim/time.h"

namespace podsim::sim {

class EventQueue {
 public:
  static constexpr std::size_t kPurgeThreshold = 1024;
  // How far ahead in the radix heap's sorted run pop() prefetches slots.
  static constexpr std::size_t kPrefetchDistance = 8;

  struct Options {
    // Route events at now() with priority 0 through the FIFO. Turning it off
    // changes speed only, never order; tests use it as the reference.
    bool same_time_fifo = true;
  };

  EventQueue() : EventQueue(Options{}) {}
  explicit EventQueue(Options options);
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // The time of the most recent pop() (or advance_to()); starts at zero. The
  // queue never accepts nor returns an event earlier than this.
  Time now() const { return now_; }

  // Adds an event that cannot be cancelled. Throws std::logic_error if t <
  // now() (time never goes backwards), std::invalid_argument if
  // target.handler is null or the priority is outside [kMinPriority,
  // kMaxPriority], and std::length_error once kMaxSequence events were pushed.
  void push(Time t, int priority, EventTarget target);
  // The same for an event that cancel() can remove: it takes a slot.
  EventId push_cancellable(Time t, int priority, EventTarget target);

  // Removes and returns the next live event if its time is <= limit; otherwise
  // (or when empty) returns nothing and leaves the queue as it was, apart from
  // discarding cancelled entries. Advances now() to the event's time.
  std::optional<Event> pop(Time limit = Time::max());

  // Cancels a pending event and returns its target, so the caller can release
  // whatever the payload refers to. Returns nothing, and does nothing, if the
  // event already ran, was already cancelled, or the id is not from this queue.
  std::optional<EventTarget> cancel(EventId id);

  bool is_pending(EventId id) const;

  // The target of the entry that pop() will look at next, or null when the
  // queue is empty or that entry was cancelled (its handler may be gone).
  // Lets the caller prefetch what the next event will touch while the
  // current one runs.
  const EventTarget* next_target() { return live_target(peek()); }

  // A hint further ahead: the target of the entry that pops `k` >= 1 places
  // after next_target()'s, as the queue stands, when it can tell cheaply:
  // in the FIFO, or in the radix heap's sorted run ahead of its near heap
  // (RadixHeap::after_top) and of the FIFO. Else null, as for a cancelled
  // entry. Call it after next_target() gave a target.
  const EventTarget* target_ahead(std::size_t k) const {
    const QueueEntry* e = nullptr;
    if (next_in_fifo_) {
      e = k < fifo_.size() ? &fifo_[k] : nullptr;
    } else {
      e = heap_.after_top(k);
      if (e != nullptr && !fifo_.empty() && !QueueEntryLess{}(*e, fifo_.front())) {
        e = nullptr;  // the FIFO's entries pop first
      }
    }
    return live_target(e);
  }

  // For a caller that hints ahead (Simulation): the entries taken off the
  // queue so far, cancelled ones included, and the pushes so far that may
  // have gone ahead of entries already queued. Between two looks, positions
  // ahead of the next entry moved by the first difference, and by an
  // unknown amount if the second changed.
  uint64_t entries_taken() const { return taken_; }
  uint64_t pushes_ahead() const { return pushed_ahead_; }

  // Moves now() forward to t without popping (cancelled entries before t are
  // dropped). Throws std::logic_error if t < now() or a live event is earlier
  // than t: the caller must have popped everything before t.
  void advance_to(Time t);

  // Live (not cancelled) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  // Entries held: live events plus cancelled ones not yet dropped.
  std::size_t queued_entries() const { return live_ + dead_; }

  // Checks every invariant (heap order, FIFO order, slot accounting): O(n).
  // Tests call it; debug builds also call it after operations on small queues.
  bool is_valid() const;

 private:
  // The target of every cancellable event's entry, with the slot as payload:
  // pop() replaces it by the slot's target, so it never runs.
  class SlotMarker final : public EventHandler {
   public:
    void handle(Simulation& sim, uint64_t payload) override;
  };

  bool has_slot(const QueueEntry& e) const { return e.target.handler == &slot_marker_; }
  static uint32_t slot_of(const QueueEntry& e) { return static_cast<uint32_t>(e.target.payload); }
  // The real target of a queued entry (a cancellable one's is in its slot),
  // or null for no entry or a cancelled one.
  const EventTarget* live_target(const QueueEntry* e) const {
    if (e == nullptr || !has_slot(*e)) {
      return e == nullptr ? nullptr : &e->target;
    }
    const uint32_t slot = slot_of(*e);
    return slots_.is_pending(slot) ? &slots_.target(slot) : nullptr;
  }
  // Whether the entry's event was cancelled (only cancellable ones can be).
  bool is_dead(const QueueEntry& e) const { return has_slot(e) && !slots_.is_pending(slot_of(e)); }
  // Checks a new event and returns its sequence.
  uint64_t admit(Time t, int priority, EventTarget target) {
    if (t < now_ || target.handler == nullptr || priority < kMinPriority ||
        priority > kMaxPriority || next_seq_ > kMaxSequence) [[unlikely]] {
      reject(t, priority, target);
    }
    return next_seq_++;
  }
  [[noreturn]] void reject(Time t, int priority, EventTarget target) const;
  void enqueue(const QueueEntry& entry);
  // The smallest entry overall, or null when the queue is empty. The answer
  // is kept (next_) until a push or a removal may change it, so the peek of
  // next_target() and that of the following pop() are one: the handler in
  // between usually schedules later events, into radix buckets, which can
  // change neither the smallest entry nor where it is stored.
  const QueueEntry* peek();
  // Removes and returns the entry peek() returned. Precondition: peek() was
  // called since the last change and returned an entry.
  QueueEntry take() {
    const QueueEntry* e = next_;
    next_ = nullptr;
    ++taken_;
    return next_in_fifo_ ? fifo_.pop_front() : heap_.pop_top(*e);
  }
  void purge_dead();
  // Debug builds validate the whole queue after each operation while it is
  // small (unit tests); release builds compile this away.
  void debug_check() const {
#ifndef NDEBUG
    validate_if_small();
#endif
  }
  void validate_if_small() const;

  Options options_;
  Time now_;
  uint64_t next_seq_ = 0;
  std::size_t live_ = 0;  // queued entries whose event is pending
  std::size_t dead_ = 0;  // cancelled entries still queued
  RadixHeap heap_;
  RingQueue<QueueEntry> fifo_;
  SlotTable slots_;
  SlotMarker slot_marker_;
  // peek()'s answer, or null when not known (or the queue is empty), and
  // whether it is the FIFO's front (else the radix heap's top).
  const QueueEntry* next_ = nullptr;
  uint64_t taken_ = 0;         // entries_taken()
  uint64_t pushed_ahead_ = 0;  // pushes_ahead()
  bool next_in_fifo_ = false;
};

// The per-event operations are defined inline: on the hold benchmark, the calls
// between translation units cost ~15% of the throughput.

// Always inlined, like RadixHeap::push (radix_heap.h says why).
[[gnu::always_inline]] inline void EventQueue::enqueue(const QueueEntry& entry) {
  // Fast path: an entry at now() with priority 0 is larger than every entry
  // already in the FIFO (same time and priority, larger sequence), so appending
  // keeps the FIFO sorted.
  if (options_.same_time_fifo && entry.priority() == 0 && entry.time == now_) {
    // Behind every FIFO entry, and so behind what target_ahead() sees of
    // the heap (entries before the FIFO's front); into an empty FIFO, maybe
    // ahead of all of it.
    pushed_ahead_ += fifo_.empty() ? 1 : 0;
    fifo_.push_back(entry);  // may move the FIFO's entries
    next_ = nullptr;
  } else if (heap_.push(entry) || entry.time == now_) {
    // Into the near heap (it may be the heap's new top), or at now() with a
    // priority that may put it before the FIFO's front. Otherwise it went
    // into a radix bucket, later than the heap's top, and later than the
    // FIFO's entries (which are at now()): peek()'s answer stands, and so
    // does the order of the entries target_ahead() can see.
    ++pushed_ahead_;
    next_ = nullptr;
  }
  ++live_;
  debug_check();
}

inline void EventQueue::push(Time t, int priority, EventTarget target) {
  const uint64_t seq = admit(t, priority, target);
  enqueue(QueueEntry::make(t, priority, seq, target));
}

inline EventId EventQueue::push_cancellable(Time t, int priority, EventTarget target) {
  const uint64_t seq = admit(t, priority, target);
  const uint32_t slot = slots_.acquire(target, seq);
  enqueue(QueueEntry::make(t, priority, seq, EventTarget{&slot_marker_, slot}));
  return EventId{slot, seq};
}

inline const QueueEntry* EventQueue::peek() {
  if (next_ != nullptr) {
    return next_;
  }
  if (fifo_.empty()) {
    next_in_fifo_ = false;
    next_ = heap_.empty() ? nullptr : &heap_.top();
  } else {
    next_in_fifo_ = heap_.empty() || QueueEntryLess{}(fifo_.front(), heap_.top());
    next_ = next_in_fifo_ ? &fifo_.front() : &heap_.top();
  }
  return next_;
}

inline std::optional<Event> EventQueue::pop(Time limit) {
  for (;;) {
    const QueueEntry* next = peek();
    if (next == nullptr || next->time > limit) {
      return std::nullopt;
    }
    const QueueEntry e = take();
    // The slots of 1e6 events do not stay in cache, and the order in which
    // entries pop is unrelated to that of their slots: without this, the read
    // of a cancellable entry's slot was a cache miss.
    if (const QueueEntry* ahead = heap_.run_ahead(kPrefetchDistance);
        ahead != nullptr && has_slot(*ahead)) {
      slots_.prefetch(slot_of(*ahead));
    }
    EventTarget target = e.target;
    if (has_slot(e)) {
      const uint32_t slot = slot_of(e);
      const bool pending = slots_.is_pending(slot);
      target = slots_.target(slot);
      slots_.release(slot);
      if (!pending) [[unlikely]] {  // cancelled: drop it now
        --dead_;
        continue;
      }
    }
    --live_;
    assert(e.time >= now_ && "time went backwards");
    now_ = e.time;
    debug_check();
    return Event{e.time, e.priority(), e.seq(), target};
  }
}

}  // namespace podsim::sim
