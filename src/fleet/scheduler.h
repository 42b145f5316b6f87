// Schedulers: what a replica runs next (docs/serving.md, "Schedulers").
//
// One interface, three implementations:
//  - static batching: when the batch is empty, admit up to max_batch
//    waiting requests (their prompts padded to the longest, within the step
//    token budget) with KV blocks for their whole prompt and output held up
//    front; prefill them together, then decode the padded batch until its
//    last request ends. Arrivals meanwhile wait.
//  - continuous batching (iteration-level, Orca/vLLM): every step decodes
//    the running batch and admits waiting requests in FIFO order whose whole
//    prompt fits the token budget left and the free KV blocks (a prompt
//    longer than what is left runs as the step's only prefill). A mixed step.
//  - chunked prefill (Sarathi-Serve): decodes first, then prompts in chunks
//    filling the token budget: prompts already started, then new ones.
//  - deadline (fleet/deadline_scheduler.h): chunked prefill with new
//    requests by earliest TTFT deadline, a prefill budget that keeps steps
//    within the running sequences' TPOT objective, and admission control.
// Continuous and chunked grow every decoding sequence's KV cache by one
// token per step; when the pool runs out, the most recently admitted
// sequence is preempted (recompute, or swap to host memory) until the rest
// fit; a swapped sequence resumes, ahead of new requests, when its blocks are
// free again. A request that needs more blocks than the whole pool is
// rejected. With prefix caching, a request is admitted with the cached
// blocks of its prompt (ReplicaState::front_hit(), admit_front(tokens)) and
// only the rest of its prompt is planned and costed; the look-up lives in
// the state, not here.
//
// plan() is O(running batch + requests admitted) per step.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/serve_spec.h"
#include "fleet/replica_state.h"
#include "fleet/step_timer.h"

namespace podsim::fleet {

struct Work {
  uint32_t slot = 0;
  uint32_t tokens = 0;  // prefill: prompt tokens processed; decode: 1
  bool prefill = false;
};

struct StepPlan {
  std::vector<Work> work;
  StepShape shape;  // what the step costs (static batching pads it)
  // Cached tokens copied between HBM and host memory before the step
  // (swap preemption: out of preempted sequences, into resumed ones).
  uint64_t swap_tokens = 0;

  void clear() {
    work.clear();
    shape = StepShape{};
    swap_tokens = 0;
  }
  void add_prefill(const Sequence& s, uint32_t slot, uint32_t tokens);
  void add_decode(const Sequence& s, uint32_t slot);
};

struct SchedulerLimits {
  uint32_t max_batch = 1;            // sequences in the running batch
  uint32_t max_tokens_per_step = 1;  // prefill tokens plus decode tokens in a step
  // Tokens a decoding sequence processes per step, with KV slots reserved
  // for them: 1, or draft tokens + 1 under speculative decoding.
  uint32_t decode_tokens = 1;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Fills `plan` (cleared first) with the next step's work; leaves it empty
  // when there is nothing to run. Reserves the step's KV blocks.
  virtual void plan(ReplicaState& state, StepPlan& plan) = 0;
};

// What a scheduler may consult beyond the replica's state: the step timer
// (DEADLINE predicts step times with it) and the admission policy.
struct SchedulerContext {
  StepTimer* timer = nullptr;
  config::AdmissionKind admission = config::AdmissionKind::kAdmitAll;
};

std::unique_ptr<Scheduler> make_scheduler(config::SchedulerKind kind, SchedulerLimits limits,
                                          const SchedulerContext& context = {});

}  // namespace podsim::fleet
