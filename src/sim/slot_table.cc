#include "sim/slot_table.h"

#include <cassert>
#include <limits>
#include <stdexcept>

namespace podsim::sim {

void SlotTable::grow() {
  // Slot numbers must fit in 32 bits, and EventId::kNoSlot is reserved.
  constexpr std::size_t kMaxSlots = std::size_t{1} << 31;
  const std::size_t size = capacity_ == 0 ? 64 : 2 * capacity_;
  if (size > kMaxSlots) {
    throw std::length_error("podsim::sim::EventQueue: more than 2^31 events queued at once");
  }
  // The new slots are free: continue the sweep in them.
  cursor_ = bits_.size();
  slots_.resize(size);
  bits_.resize(size / 64);
  capacity_ = size;
  grow_at_ = size / 8 * 7;
  assert(cursor_ < bits_.size());
}

}  // namespace podsim::sim
