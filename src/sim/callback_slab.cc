#include "sim/callback_slab.h"

#include <cassert>
#include <limits>
#include <stdexcept>
#include <utility>

namespace podsim::sim {

uint64_t CallbackSlab::add(Callback fn) {
  if (!fn) {
    throw std::invalid_argument("podsim::sim::Simulation: empty callback");
  }
  if (!free_.empty()) {
    const uint32_t slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(fn);
    return slot;
  }
  if (slots_.size() >= std::numeric_limits<uint32_t>::max()) {
    throw std::length_error("podsim::sim::CallbackSlab: more than 2^32-1 callbacks");
  }
  slots_.push_back(std::move(fn));
  return slots_.size() - 1;
}

void CallbackSlab::release(uint64_t slot) {
  assert(slot < slots_.size() && slots_[slot]);
  free_slot(slot);
}

void CallbackSlab::free_slot(uint64_t slot) {
  slots_[slot] = nullptr;
  free_.push_back(static_cast<uint32_t>(slot));
}

void CallbackSlab::handle(Simulation& sim, uint64_t slot) {
  // Move the callable out before running it: it may schedule more callbacks,
  // which can reallocate slots_ under a callable running in place. Releasing
  // first also keeps the slab consistent if the callable throws.
  Callback fn = std::move(slots_[slot]);
  free_slot(slot);
  fn(sim);
}

}  // namespace podsim::sim
