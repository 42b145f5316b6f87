// A replica's cache of full KV blocks keyed by their content (automatic
// prefix caching, as vLLM's: docs/serving.md, "Prefix caching"). Block i of
// a request whose tokens are named by chain node n (fleet/prefix_chains.h)
// is keyed by (the node of the chain's segment that covers tokens
// [0, (i+1) x block), i): the same key exactly when the same content and
// everything before it fill the block. Only full blocks within the named
// content are cached.
//
// An entry occupies one KV block. Sequences reference entries (a shared
// block occupies HBM once); an entry no sequence references stays cached,
// evictable, in least-recently-released order, until a block is needed
// and no free one is left. The cache counts entries; which blocks are free
// is ReplicaState's (fleet/replica_state.h).
//
// Every operation is O(1) per block on average (one hash look-up, list
// links by index), plus O(chain depth) to walk the chain once per call.
// Entries live in a pool recycled through a free list: no allocation per
// request once the pool has reached its peak.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fleet/prefix_chains.h"

namespace podsim::fleet {

class PrefixCache {
 public:
  explicit PrefixCache(uint32_t block_tokens) : block_tokens_(block_tokens) {}
  // The run's chains (not owned); until set, nothing is ever cached.
  void use_chains(const PrefixChains* chains) { chains_ = chains; }

  // The leading blocks of chain `node` found cached, at most `max_blocks`
  // (the first miss ends the run), and how many of those no sequence
  // references (evictable: referencing them takes them from the pool).
  struct Hit {
    uint32_t blocks = 0;
    uint32_t evictable = 0;
  };
  Hit lookup(uint32_t node, uint32_t max_blocks);
  // References the first `blocks` blocks of `node` (all cached: a lookup's).
  void acquire(uint32_t node, uint32_t blocks);
  // Drops the references to the first `blocks` blocks of `node`; entries
  // left unreferenced become evictable, the last block first (so the tail
  // of a prefix is evicted before its head, as vLLM frees them).
  void release(uint32_t node, uint32_t blocks);
  // Blocks [from, to) of `node` were just computed by a sequence that holds
  // them privately: each becomes a referenced entry. Returns how many were
  // cached already (the sequence references those and its copies are free).
  uint32_t add(uint32_t node, uint32_t from, uint32_t to);

  uint64_t entries() const { return map_.size(); }
  uint64_t evictable() const { return evictable_; }
  // Drops the least recently released unreferenced entry (evictable() > 0):
  // its block is free.
  void evict_lru();
  uint64_t evicted() const { return evicted_; }

 private:
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  struct Entry {
    uint64_t key = 0;
    uint32_t refs = 0;
    uint32_t prev = kNil;  // LRU links, while unreferenced
    uint32_t next = kNil;
  };

  // Walks `node`'s chain to give each block index its key.
  class Keys {
   public:
    Keys(const PrefixChains& chains, std::vector<uint32_t>& path, uint32_t node,
         uint32_t block_tokens);
    uint64_t operator()(uint32_t index);

   private:
    const PrefixChains& chains_;
    const std::vector<uint32_t>& path_;
    uint32_t block_tokens_;
    size_t at_ = 0;
  };

  void unlink(uint32_t e);
  void push_back(uint32_t e);  // most recently released
  void take(uint32_t e);       // one more reference
  void drop(uint32_t e);       // one reference less

  uint32_t block_tokens_;
  const PrefixChains* chains_ = nullptr;
  std::vector<Entry> pool_;
  std::vector<uint32_t> free_;
  std::unordered_map<uint64_t, uint32_t> map_;
  uint32_t head_ = kNil;  // least recently released
  uint32_t tail_ = kNil;
  uint64_t evictable_ = 0;
  uint64_t evicted_ = 0;
  std::vector<uint32_t> path_;     // scratch
  std::vector<uint32_t> entries_;  // scratch
};

}  // namespace podsim::fleet
