// The slots of queued cancellable events: the part of such an event that
// cancel() needs to find in O(1), and what pop() reads to run it. A slot records the event's
// insertion sequence (which an EventId must match, so a stale id can never hit a later event in the
// same slot) and its target, and two bitmaps say whether the slot is occupied (some queued entry,
// live or cancelled, refers to it) and whether its event is still pending.
//
// Allocation is next-fit: a cursor sweeps the occupied bitmap for a free bit,
// so consecutive events get nearby slots and the slot array is written almost
// sequentially. The first version reused freed slots LIFO; with 1e6 pending
// events each reused slot had been written ~1e6 events earlier, so every push
// took a write miss, and the hold benchmark ran at a third of its current speed.
// The table grows (doubling) when seven eighths of it is occupied, so a free
// bit is never far from the cursor, and it never holds more than about 2.3 slots
// per queued entry.
//
//   acquire O(1) amortised, release/pending O(1); memory 24 bytes + 2 bits per
//   slot, with at most 16/7 * (most entries ever queued at once) + 64 slots.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/event.h"

namespace podsim::sim {

class SlotTable {
 public:
  // Takes a free slot for a new pending event.
  uint32_t acquire(EventTarget target, uint64_t seq);
  // The entry that referred to `slot` has left the queue: the slot is free.
  void release(uint32_t slot) {
    word(slot).occupied &= ~bit(slot);
    word(slot).pending &= ~bit(slot);
    --occupied_count_;
  }

  // Starts loading the bits and the target of `slot`, which pop() will read.
  void prefetch(uint32_t slot) const {
    __builtin_prefetch(&word(slot), 1);
    __builtin_prefetch(&slots_[slot]);
  }

  bool is_pending(uint32_t slot) const { return (word(slot).pending & bit(slot)) != 0; }
  void clear_pending(uint32_t slot) { word(slot).pending &= ~bit(slot); }
  // Whether id names an event that is still pending.
  bool matches(EventId id) const {
    return id.slot < slots_.size() && slots_[id.slot].seq == id.seq && is_pending(id.slot);
  }

  bool is_occupied(uint32_t slot) const { return (word(slot).occupied & bit(slot)) != 0; }
  uint64_t seq(uint32_t slot) const { return slots_[slot].seq; }
  const EventTarget& target(uint32_t slot) const { return slots_[slot].target; }
  std::size_t capacity() const { return capacity_; }
  std::size_t occupied() const { return occupied_count_; }

 private:
  // How far ahead of a slot taken acquire() prefetches (8, 16 and 32 measured
  // within 3%; without it, the hold benchmark at 1e7 pending is 28% slower).
  static constexpr uint32_t kSlotPrefetchDistance = 16;
  struct Slot {
    EventTarget target;
    uint64_t seq = 0;
  };
  // The two bits of a slot share a cache line: pop() touches both.
  struct BitWord {
    uint64_t occupied = 0;  // some queued entry refers to the slot
    uint64_t pending = 0;   // ... and its event is pending; implies occupied
  };

  static uint64_t bit(uint32_t slot) { return uint64_t{1} << (slot % 64); }
  BitWord& word(uint32_t slot) { return bits_[slot / 64]; }
  const BitWord& word(uint32_t slot) const { return bits_[slot / 64]; }
  void grow();
  void advance_cursor() { cursor_ = cursor_ + 1 == bits_.size() ? 0 : cursor_ + 1; }

  std::vector<Slot> slots_;    // size: a multiple of 64
  std::vector<BitWord> bits_;  // one per 64 slots
  std::size_t occupied_count_ = 0;
  // slots_.size() and seven eighths of it, kept as members: acquire() reads
  // them on every push, and the vector's size is a division by sizeof(Slot).
  std::size_t capacity_ = 0;
  std::size_t grow_at_ = 0;
  std::size_t cursor_ = 0;  // the word where the search for a free slot starts
};

// Inline: runs once per scheduled event.
inline uint32_t SlotTable::acquire(EventTarget target, uint64_t seq) {
  // Keep at least an eighth of the slots free, so the sweep below is short.
  if (occupied_count_ >= grow_at_) {
    grow();
  }
  while (bits_[cursor_].occupied == ~uint64_t{0}) {
    advance_cursor();
  }
  BitWord& w = bits_[cursor_];
  const auto slot = static_cast<uint32_t>(cursor_ * 64 + std::countr_one(w.occupied));
  w.occupied |= bit(slot);
  w.pending |= bit(slot);
  ++occupied_count_;
  slots_[slot] = Slot{target, seq};
  // The next slots taken follow this one: start loading them for writing
  // (the table is far larger than the caches at 1e6 pending events).
  if (slot + kSlotPrefetchDistance < capacity_) {
    __builtin_prefetch(&slots_[slot + kSlotPrefetchDistance], 1);
  }
  return slot;
}

}  // namespace podsim::sim
