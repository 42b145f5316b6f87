// A replica's requests and KV cache, as a scheduler sees them: the waiting
// queue (FIFO; preempted sequences go back to its front), the running batch
// (in admission order) and the pool of paged KV blocks. The mechanics
// (admit, grow, preempt, reject) live here; which ones to apply is the
// scheduler's choice (fleet/scheduler.h).
//
// Sequences live in a slot pool recycled through a free list, so a run of a
// million requests allocates only when the number in the system reaches a
// new peak. Every operation is O(1) except running-batch removals, which are
// O(batch), and, with prefix caching, O(1) per KV block looked up, shared or
// released (fleet/prefix_cache.h).
//
// With prefix caching, a sequence's first `shared` blocks are references to
// cached entries (a block several sequences share occupies HBM once), the
// rest its own. A new or recomputing sequence is admitted with the cached
// blocks of its prompt (at most prompt - 1 tokens: the last prompt token is
// always computed) and prefills from there; the full blocks it computes
// within its named content join the cache when the step that computed
// them ends. Unreferenced cached blocks count as free: taking a block when
// none is free evicts the least recently released one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "fleet/prefix_cache.h"
#include "sim/time.h"

namespace podsim::fleet {

struct Sequence {
  uint32_t request = 0;  // the run's request index
  uint32_t prompt = 0;   // prompt tokens
  uint32_t output = 0;   // output tokens to produce (>= 1)
  uint32_t target = 0;   // tokens to prefill: the prompt, plus after a preemption the output so far
  uint32_t cached = 0;   // tokens in the KV cache
  uint32_t generated = 0;  // output tokens produced
  uint32_t blocks = 0;     // KV blocks held
  bool admitted_once = false;
  bool swapped = false;  // its KV cache is in host memory
  bool remote = false;   // with swapped: its cache arrives from a prefill replica (no swap time)
  // SLO-aware scheduling (fleet/slo_classes.h): when its first token is due
  // (Time::max(): no objective) and its TPOT objective (0: none); deferred
  // behind every request that can still meet its deadline.
  sim::Time deadline = sim::Time::max();
  sim::Time tpot;
  bool deferred = false;
  uint32_t prefix = PrefixChains::kRoot;  // the chain naming its tokens (prefix caching)
  uint32_t cover = 0;                     // its tokens that chain names
  uint32_t shared = 0;                    // leading blocks held as cache references

  bool prefilling() const { return cached < target; }
  // Prompt tokens still to prefill plus output tokens still to produce.
  uint64_t remaining_tokens() const {
    return uint64_t{prefilling() ? target - cached : 0u} + (output - generated);
  }
};

// What happened to a request, for the run's records.
class ReplicaListener {
 public:
  virtual void admitted(uint32_t request) = 0;   // first admission into a running batch
  virtual void preempted(uint32_t request) = 0;  // its KV cache dropped
  virtual void rejected(uint32_t request) = 0;   // can never fit in the KV cache
  // Shed by admission control: predicted to miss its TTFT deadline.
  virtual void shed(uint32_t request) { rejected(request); }
  // Deferred by admission control behind the requests that can still meet
  // their deadlines.
  virtual void deferred(uint32_t request) { (void)request; }
  // Admitted with `tokens` tokens of its prefill found in the prefix cache
  // (first: its first admission). Called before admitted().
  virtual void prefix_hit(uint32_t request, uint32_t tokens, bool first) {
    (void)request;
    (void)tokens;
    (void)first;
  }

 protected:
  ~ReplicaListener() = default;
};

class ReplicaState {
 public:
  // swap: preemption copies the KV cache to host memory (kept), instead of
  // dropping it (recompute).
  // prefix_caching: keep full KV blocks of named content for later
  // requests (fleet/prefix_cache.h); the chains come from use_chains().
  ReplicaState(uint64_t kv_blocks, uint32_t block_tokens, ReplicaListener& listener,
               bool swap = false, bool prefix_caching = false);
  bool swaps() const { return swap_; }
  bool caches_prefixes() const { return caching_; }
  // The run's prefix chains (not owned; null: no request names content).
  void use_chains(const PrefixChains* chains) {
    chains_ = chains;
    cache_.use_chains(chains);
  }

  // A routed request joins the back of the waiting queue (in deadline
  // order: before every new request due later and every deferred one);
  // returns its slot. `prefix`: the chain naming its tokens
  // (PrefixChains::kRoot: none).
  uint32_t enqueue(uint32_t request, uint32_t prompt, uint32_t output,
                   uint32_t prefix = PrefixChains::kRoot, sim::Time deadline = sim::Time::max(),
                   sim::Time tpot = {});
  // Orders new requests in the waiting queue by deadline (earliest first)
  // instead of by arrival; preempted and swapped sequences stay at the front.
  void order_by_deadline(bool on) { by_deadline_ = on; }
  // The time of the step being planned (set by the replica).
  void set_now(sim::Time now) { now_ = now; }
  sim::Time now() const { return now_; }

  Sequence& seq(uint32_t slot) { return pool_[slot]; }
  const Sequence& seq(uint32_t slot) const { return pool_[slot]; }
  const std::deque<uint32_t>& waiting() const { return waiting_; }
  const std::vector<uint32_t>& running() const { return running_; }

  uint64_t blocks_total() const { return blocks_total_; }
  // Free blocks, cached blocks no sequence references included (they are
  // evicted when taken).
  uint64_t blocks_free() const { return blocks_free_ + cache_.evictable(); }
  uint64_t blocks_used() const { return blocks_total_ - blocks_free(); }
  uint32_t block_tokens() const { return block_tokens_; }
  uint64_t blocks_for(uint64_t tokens) const {
    return (tokens + block_tokens_ - 1) / block_tokens_;
  }

  // Holds blocks for `tokens` tokens of `slot` (at least what it holds);
  // false, holding nothing more, when the pool has too few free.
  bool reserve(uint32_t slot, uint64_t tokens);
  // The front of the waiting queue joins the back of the running batch.
  void admit_front();
  // Tokens of the waiting front's prefill found in the prefix cache, whole
  // blocks, at most target - 1 (0 without prefix caching, or when the front
  // is swapped out or already holds a cache).
  uint32_t front_hit();
  // The front joins the back of the running batch with its prefix hit
  // (front_hit(): its `cached` starts there, those blocks shared) and blocks
  // for `tokens` tokens in all; false, holding nothing, when too few are
  // free. Without prefix caching: reserve(front, tokens), then admit_front().
  bool admit_front(uint64_t tokens);
  // After a step advanced `slot`: its newly full blocks within its named
  // content join the prefix cache (no-op without prefix caching).
  void computed(uint32_t slot);
  // Frees the KV blocks of the last sequence of the running batch and puts it
  // back at the front of the waiting queue: to prefill its prompt and its
  // output so far again (recompute), or, swapping, with its cache in host
  // memory (swapped, cached kept). Returns its slot.
  uint32_t preempt_last();
  // The front of the waiting queue, swapped out, joins the running batch
  // with blocks for its cache and one more token; false when they are not free.
  bool swap_in_front();
  // Drops the front of the waiting queue: it needs more blocks than the
  // pool has (or, `shed`, it would miss its deadline). Frees its slot.
  void reject_front(bool shed = false);
  // Moves the front of the waiting queue to the back, deferred.
  void defer_front();
  // Removes every finished sequence (all output produced) from the running
  // batch, keeping the others' order, and frees them after calling
  // on_finish(slot). With `hand_off`, sequences past their prefill leave too
  // (a prefill replica's): on_hand_off(slot) is called, their remaining
  // tokens leave outstanding_tokens(), and their blocks stay held until
  // return_blocks() (the cache is read out while it moves). O(batch).
  template <class OnFinish, class OnHandOff>
  void sweep_finished(OnFinish on_finish, bool hand_off, OnHandOff on_hand_off) {
    std::size_t kept = 0;
    for (const uint32_t slot : running_) {
      Sequence& s = pool_[slot];
      if (s.generated >= s.output) {
        on_finish(slot);
        release(slot);
      } else if (hand_off && !s.prefilling()) {
        on_hand_off(slot);
        outstanding_ -= s.remaining_tokens();
        s.blocks = 0;  // held until return_blocks()
        s.shared = 0;
        free_slots_.push_back(slot);
      } else {
        running_[kept++] = slot;
      }
    }
    running_.resize(kept);
  }
  template <class OnFinish>
  void sweep_finished(OnFinish on_finish) {
    sweep_finished(on_finish, false, [](uint32_t) {});
  }
  // The blocks of a handed-off sequence (as it was handed off), free again
  // once its cache has moved: its own blocks, and its references to cached
  // ones.
  void return_blocks(const Sequence& handed_off);
  // A sequence whose prefill ran on another replica joins the back of the
  // waiting queue with its cache in flight (it is admitted like a swapped
  // sequence, without swap time). Returns its slot.
  uint32_t enqueue_prefilled(uint32_t request, uint32_t prompt, uint32_t output, uint32_t cached,
                             uint32_t generated);

  // Prompt and output tokens not yet processed, over every sequence here.
  uint64_t outstanding_tokens() const { return outstanding_; }
  // Adjusts outstanding_tokens() after the replica advanced a sequence.
  void processed(uint64_t tokens) { outstanding_ -= tokens; }

  // Prefix caching: prefill tokens found cached over every admission, and
  // cached blocks evicted.
  uint64_t prefix_hit_tokens() const { return hit_tokens_; }
  uint64_t prefix_blocks_evicted() const { return cache_.evicted(); }

 private:
  void release(uint32_t slot);
  // The waiting front's cached head (see front_hit()).
  PrefixCache::Hit front_lookup();
  // Takes `n` blocks (n <= blocks_free()): free ones first, then evicts.
  void take_blocks(uint64_t n);
  // Drops `s`'s blocks: its references to cached ones and its own.
  void drop_blocks(Sequence& s);

  std::vector<Sequence> pool_;
  std::vector<uint32_t> free_slots_;
  std::deque<uint32_t> waiting_;
  std::vector<uint32_t> running_;
  uint64_t blocks_total_;
  uint64_t blocks_free_;
  uint32_t block_tokens_;
  bool swap_ = false;
  bool by_deadline_ = false;
  sim::Time now_;
  uint64_t outstanding_ = 0;
  ReplicaListener& listener_;
  bool caching_ = false;
  const PrefixChains* chains_ = nullptr;
  PrefixCache cache_;
  uint64_t hit_tokens_ = 0;
};

}  // namespace podsim::fleet
