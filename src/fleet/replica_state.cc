#include "fleet/replica_state.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::fleet {

ReplicaState::ReplicaState(uint64_t kv_blocks, uint32_t block_tokens, ReplicaListener& listener,
                           bool swap)
    : blocks_total_(kv_blocks),
      blocks_free_(kv_blocks),
      block_tokens_(block_tokens),
      swap_(swap),
      listener_(listener) {
  if (block_tokens == 0)
    throw std::invalid_argument("a KV block holds at least one token");
}

uint32_t ReplicaState::enqueue(uint32_t request, uint32_t prompt, uint32_t output,
                               sim::Time deadline, sim::Time tpot) {
  uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(pool_.size());
    pool_.emplace_back();
  }
  Sequence& s = pool_[slot];
  s = Sequence{};
  s.request = request;
  s.prompt = prompt;
  s.output = output;
  s.target = prompt;
  s.deadline = deadline;
  s.tpot = tpot;
  auto at = waiting_.end();
  if (by_deadline_) {
    // Behind every new request due no later; ahead of deferred ones.
    while (at != waiting_.begin()) {
      const Sequence& before = pool_[*(at - 1)];
      const bool passes = before.deferred ||
                          (!before.admitted_once && !before.swapped && before.deadline > deadline);
      if (!passes)
        break;
      --at;
    }
  }
  waiting_.insert(at, slot);
  outstanding_ += uint64_t{prompt} + output;
  return slot;
}

bool ReplicaState::reserve(uint32_t slot, uint64_t tokens) {
  Sequence& s = pool_[slot];
  const uint64_t need = blocks_for(tokens);
  if (need <= s.blocks)
    return true;
  const uint64_t more = need - s.blocks;
  if (more > blocks_free_)
    return false;
  blocks_free_ -= more;
  s.blocks = static_cast<uint32_t>(need);
  return true;
}

void ReplicaState::admit_front() {
  const uint32_t slot = waiting_.front();
  waiting_.pop_front();
  running_.push_back(slot);
  Sequence& s = pool_[slot];
  if (!s.admitted_once) {
    s.admitted_once = true;
    listener_.admitted(s.request);
  }
}

uint32_t ReplicaState::preempt_last() {
  const uint32_t slot = running_.back();
  running_.pop_back();
  Sequence& s = pool_[slot];
  const uint64_t before = s.remaining_tokens();
  blocks_free_ += s.blocks;
  s.blocks = 0;
  if (swap_ && !s.prefilling()) {
    s.swapped = true;  // a prompt still prefilling is simply restarted
  } else {
    s.cached = 0;
    s.target = s.prompt + s.generated;
    outstanding_ += s.remaining_tokens() - before;
  }
  waiting_.push_front(slot);
  listener_.preempted(s.request);
  return slot;
}

uint32_t ReplicaState::enqueue_prefilled(uint32_t request, uint32_t prompt, uint32_t output,
                                         uint32_t cached, uint32_t generated) {
  const uint32_t slot = enqueue(request, prompt, output);
  Sequence& s = pool_[slot];
  s.cached = cached;
  s.generated = generated;
  s.admitted_once = true;  // admitted by the prefill replica
  s.swapped = true;
  s.remote = true;
  outstanding_ -= uint64_t{prompt} + generated;  // enqueue() counted the whole request
  return slot;
}

bool ReplicaState::swap_in_front() {
  const uint32_t slot = waiting_.front();
  if (!reserve(slot, uint64_t{pool_[slot].cached} + 1))
    return false;
  pool_[slot].swapped = false;
  pool_[slot].remote = false;
  admit_front();
  return true;
}

void ReplicaState::reject_front(bool shed) {
  const uint32_t slot = waiting_.front();
  waiting_.pop_front();
  outstanding_ -= pool_[slot].remaining_tokens();
  if (shed)
    listener_.shed(pool_[slot].request);
  else
    listener_.rejected(pool_[slot].request);
  release(slot);
}

void ReplicaState::defer_front() {
  const uint32_t slot = waiting_.front();
  waiting_.pop_front();
  pool_[slot].deferred = true;
  waiting_.push_back(slot);
  listener_.deferred(pool_[slot].request);
}

void ReplicaState::release(uint32_t slot) {
  blocks_free_ += pool_[slot].blocks;
  pool_[slot].blocks = 0;
  free_slots_.push_back(slot);
}

}  // namespace podsim::fleet
