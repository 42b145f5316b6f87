#include "fleet/replica_state.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::fleet {

ReplicaState::ReplicaState(uint64_t kv_blocks, uint32_t block_tokens, ReplicaListener& listener,
                           bool swap, bool prefix_caching)
    : blocks_total_(kv_blocks),
      blocks_free_(kv_blocks),
      block_tokens_(block_tokens),
      swap_(swap),
      listener_(listener),
      caching_(prefix_caching),
      cache_(block_tokens) {
  if (block_tokens == 0)
    throw std::invalid_argument("a KV block holds at least one token");
}

uint32_t ReplicaState::enqueue(uint32_t request, uint32_t prompt, uint32_t output, uint32_t prefix,
                               sim::Time deadline, sim::Time tpot) {
  uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(pool_.size());
    pool_.emplace_back();
  }
  const bool named = caching_ && chains_ != nullptr && prefix != PrefixChains::kRoot;
  Sequence& s = pool_[slot];
  s = Sequence{};
  s.request = request;
  s.prompt = prompt;
  s.output = output;
  s.target = prompt;
  s.deadline = deadline;
  s.tpot = tpot;
  s.prefix = named ? prefix : PrefixChains::kRoot;
  s.cover = named ? chains_->covered(prefix, prompt + output) : 0;
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
  if (more > blocks_free())
    return false;
  take_blocks(more);
  s.blocks = static_cast<uint32_t>(need);
  return true;
}

void ReplicaState::take_blocks(uint64_t n) {
  const uint64_t free = std::min(n, blocks_free_);
  blocks_free_ -= free;
  for (uint64_t i = free; i < n; ++i)
    cache_.evict_lru();  // the evicted entry's block is the taker's
}

void ReplicaState::drop_blocks(Sequence& s) {
  cache_.release(s.prefix, s.shared);
  blocks_free_ += s.blocks - s.shared;
  s.blocks = 0;
  s.shared = 0;
}

PrefixCache::Hit ReplicaState::front_lookup() {
  const Sequence& s = pool_[waiting_.front()];
  if (s.prefix == PrefixChains::kRoot || s.swapped || s.cached > 0)
    return {};
  const auto most = std::min((s.target - 1) / block_tokens_, s.cover / block_tokens_);
  return cache_.lookup(s.prefix, most);
}

uint32_t ReplicaState::front_hit() {
  return front_lookup().blocks * block_tokens_;
}

bool ReplicaState::admit_front(uint64_t tokens) {
  const uint32_t slot = waiting_.front();
  Sequence& s = pool_[slot];
  const PrefixCache::Hit h = front_lookup();
  if (h.blocks == 0) {
    if (!reserve(slot, tokens))
      return false;
    admit_front();
    return true;
  }
  const uint32_t shared = h.blocks;
  const uint32_t hit = shared * block_tokens_;
  const uint64_t own = std::max<uint64_t>(blocks_for(tokens), shared) - shared;
  // Referencing the hit's unreferenced entries takes them from the pool.
  if (own + h.evictable > blocks_free())
    return false;
  cache_.acquire(s.prefix, shared);
  take_blocks(own);
  s.shared = shared;
  s.blocks = static_cast<uint32_t>(shared + own);
  s.cached = hit;
  hit_tokens_ += hit;
  listener_.prefix_hit(s.request, hit, !s.admitted_once);
  admit_front();
  return true;
}

void ReplicaState::computed(uint32_t slot) {
  Sequence& s = pool_[slot];
  if (s.prefix == PrefixChains::kRoot)
    return;
  const uint32_t full = std::min(s.cached, s.cover) / block_tokens_;
  if (full <= s.shared)
    return;
  // Blocks someone cached meanwhile are shared; this sequence's copies free.
  blocks_free_ += cache_.add(s.prefix, s.shared, full);
  s.shared = full;
}

void ReplicaState::return_blocks(const Sequence& handed_off) {
  cache_.release(handed_off.prefix, handed_off.shared);
  blocks_free_ += handed_off.blocks - handed_off.shared;
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
  drop_blocks(s);
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
  drop_blocks(pool_[slot]);
  free_slots_.push_back(slot);
}

}  // namespace podsim::fleet
