#include "fleet/prefix_cache.h"

#include <stdexcept>

namespace podsim::fleet {

PrefixCache::Keys::Keys(const PrefixChains& chains, std::vector<uint32_t>& path, uint32_t node,
                        uint32_t block_tokens)
    : chains_(chains), path_(path), block_tokens_(block_tokens) {
  chains.path(node, path);
}

// Blocks are asked for in increasing order (from any first one): the
// segment covering a block's last token only moves forward, O(chain depth)
// over a whole walk. Block indices stay below 2^24 (requests
// are at most 2^21 tokens), node ids below 2^32.
uint64_t PrefixCache::Keys::operator()(uint32_t index) {
  const uint64_t last = (uint64_t{index} + 1) * block_tokens_;
  while (at_ + 1 < path_.size() && chains_.node(path_[at_]).end < last)
    ++at_;
  return uint64_t{path_[at_]} << 24 | index;
}

PrefixCache::Hit PrefixCache::lookup(uint32_t node, uint32_t max_blocks) {
  Hit hit;
  if (chains_ == nullptr || node == PrefixChains::kRoot)
    return hit;
  Keys key(*chains_, path_, node, block_tokens_);
  for (uint32_t i = 0; i < max_blocks; ++i) {
    const auto it = map_.find(key(i));
    if (it == map_.end())
      break;
    ++hit.blocks;
    if (pool_[it->second].refs == 0)
      ++hit.evictable;
  }
  return hit;
}

void PrefixCache::acquire(uint32_t node, uint32_t blocks) {
  if (blocks == 0)
    return;
  Keys key(*chains_, path_, node, block_tokens_);
  for (uint32_t i = 0; i < blocks; ++i)
    take(map_.at(key(i)));
}

void PrefixCache::release(uint32_t node, uint32_t blocks) {
  if (blocks == 0)
    return;
  Keys key(*chains_, path_, node, block_tokens_);
  // Keys come in increasing order; entries are released last first.
  entries_.clear();
  for (uint32_t i = 0; i < blocks; ++i)
    entries_.push_back(map_.at(key(i)));
  for (uint32_t i = blocks; i-- > 0;)
    drop(entries_[i]);
}

uint32_t PrefixCache::add(uint32_t node, uint32_t from, uint32_t to) {
  if (from >= to)
    return 0;
  Keys key(*chains_, path_, node, block_tokens_);  // may start at any block
  uint32_t existed = 0;
  for (uint32_t i = from; i < to; ++i) {
    const auto [it, added] = map_.try_emplace(key(i), 0);
    if (!added) {
      take(it->second);
      ++existed;
      continue;
    }
    uint32_t e = 0;
    if (!free_.empty()) {
      e = free_.back();
      free_.pop_back();
    } else {
      e = static_cast<uint32_t>(pool_.size());
      pool_.emplace_back();
    }
    pool_[e] = Entry{it->first, 1, kNil, kNil};
    it->second = e;
  }
  return existed;
}

void PrefixCache::evict_lru() {
  if (head_ == kNil)
    throw std::logic_error("no evictable KV block");
  const uint32_t e = head_;
  unlink(e);
  --evictable_;
  ++evicted_;
  map_.erase(pool_[e].key);
  free_.push_back(e);
}

void PrefixCache::unlink(uint32_t e) {
  Entry& x = pool_[e];
  (x.prev == kNil ? head_ : pool_[x.prev].next) = x.next;
  (x.next == kNil ? tail_ : pool_[x.next].prev) = x.prev;
  x.prev = x.next = kNil;
}

void PrefixCache::push_back(uint32_t e) {
  Entry& x = pool_[e];
  x.prev = tail_;
  x.next = kNil;
  (tail_ == kNil ? head_ : pool_[tail_].next) = e;
  tail_ = e;
}

void PrefixCache::take(uint32_t e) {
  if (pool_[e].refs++ == 0) {
    unlink(e);
    --evictable_;
  }
}

void PrefixCache::drop(uint32_t e) {
  if (--pool_[e].refs == 0) {
    push_back(e);
    ++evictable_;
  }
}

}  // namespace podsim::fleet
