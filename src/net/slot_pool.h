// A slab of reusable records addressed by 32-bit slot numbers: the models keep
// one record per transfer in flight and name it in event payloads by its slot.
//
// A released slot keeps its object (and so the capacity of any vector inside
// it); acquire() hands back the most recently released slot first (LIFO, hot in
// cache). In steady state neither call allocates. The caller resets the fields
// it uses. acquire and release are O(1) amortised.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

namespace podsim::net {

template <typename T>
class SlotPool {
 public:
  uint32_t acquire() {
    if (!free_.empty()) {
      const uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    items_.emplace_back();
    return static_cast<uint32_t>(items_.size() - 1);
  }

  // The slot the next acquire() returns, or capacity() if it will create
  // one (for a prefetch hint).
  uint32_t next() const { return free_.empty() ? capacity() : free_.back(); }

  void release(uint32_t slot) {
    assert(slot < items_.size());
    free_.push_back(slot);
  }

  T& operator[](uint32_t slot) { return items_[slot]; }
  const T& operator[](uint32_t slot) const { return items_[slot]; }

  // Slots acquired and not released.
  uint64_t live() const { return items_.size() - free_.size(); }
  // Every slot ever created, live or free (for scans over the whole pool).
  uint32_t capacity() const { return static_cast<uint32_t>(items_.size()); }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
};

}  // namespace podsim::net
