#include "fleet/scheduler.h"

#include <algorithm>

#include "fleet/deadline_scheduler.h"
#include "fleet/scheduler_steps.h"

namespace podsim::fleet {

void StepPlan::add_prefill(const Sequence& s, uint32_t slot, uint32_t tokens) {
  work.push_back(Work{slot, tokens, true});
  ++shape.prefill_sequences;
  shape.prefill_tokens += tokens;
  shape.prefill_context_tokens += s.cached;
}

void StepPlan::add_decode(const Sequence& s, uint32_t slot) {
  work.push_back(Work{slot, 1, false});
  ++shape.decode_sequences;
  shape.decode_context_tokens += s.cached;
}

namespace internal {

// Decodes every running sequence past its prefill, reserving KV slots for
// the `lookahead` tokens it processes (1; draft tokens + 1 when speculating);
// preempts from the back when blocks run out. Returns the decodes planned.
uint32_t plan_decodes(ReplicaState& state, StepPlan& plan, uint32_t lookahead) {
  uint32_t decodes = 0;
  size_t i = 0;
  while (i < state.running().size()) {
    const uint32_t slot = state.running()[i];
    const Sequence& s = state.seq(slot);
    if (s.prefilling()) {
      ++i;
      continue;
    }
    if (state.reserve(slot, uint64_t{s.cached} + lookahead)) {
      plan.add_decode(s, slot);
      ++decodes;
      ++i;
      continue;
    }
    // The last sequence is at index >= i: nothing planned refers to it.
    const uint32_t victim = state.preempt_last();
    if (state.seq(victim).swapped)
      plan.swap_tokens += state.seq(victim).cached;
  }
  return decodes;
}

// Resumes swapped-out sequences at the front of the queue while the batch
// and the blocks allow; true when the front (if any) is a new request.
bool swap_in(ReplicaState& state, StepPlan& plan, const SchedulerLimits& limits) {
  while (!state.waiting().empty() && state.seq(state.waiting().front()).swapped) {
    if (state.running().size() >= limits.max_batch)
      return false;
    const uint32_t slot = state.waiting().front();
    if (state.blocks_for(uint64_t{state.seq(slot).cached} + limits.decode_tokens) >
        state.blocks_total()) {
      state.reject_front();  // grew to fill the whole cache: it can never go on
      continue;
    }
    const bool remote = state.seq(slot).remote;
    if (!state.swap_in_front())
      return false;
    if (!remote)
      plan.swap_tokens += state.seq(slot).cached;
  }
  return true;
}

// A step that would hold no work although sequences run (every one just
// resumed from host memory or another replica) decodes them instead.
void decode_if_idle(ReplicaState& state, StepPlan& plan, uint32_t lookahead) {
  if (plan.work.empty() && !state.running().empty())
    plan_decodes(state, plan, lookahead);
}

// Rejects waiting requests at the front that need more blocks than the pool
// has (prompt plus the KV slots of one decode step: `lookahead` tokens).
// True when the front can be considered.
bool front_fits_at_all(ReplicaState& state, uint32_t lookahead) {
  while (!state.waiting().empty()) {
    const Sequence& s = state.seq(state.waiting().front());
    if (state.blocks_for(uint64_t{s.target} + lookahead) <= state.blocks_total())
      return true;
    state.reject_front();
  }
  return false;
}

uint64_t plan_decodes_and_budget(ReplicaState& state, StepPlan& plan,
                                 const SchedulerLimits& limits) {
  const uint32_t lookahead = limits.decode_tokens;
  const uint64_t decode_tokens = uint64_t{plan_decodes(state, plan, lookahead)} * lookahead;
  return limits.max_tokens_per_step > decode_tokens ? limits.max_tokens_per_step - decode_tokens
                                                    : 0;
}

bool continue_prompts(ReplicaState& state, StepPlan& plan, uint64_t& budget) {
  for (const uint32_t slot : state.running()) {
    if (budget == 0)
      return false;
    const Sequence& s = state.seq(slot);
    if (!s.prefilling())
      continue;
    const auto chunk = static_cast<uint32_t>(std::min<uint64_t>(s.target - s.cached, budget));
    if (!state.reserve(slot, uint64_t{s.cached} + chunk))
      return false;
    plan.add_prefill(s, slot, chunk);
    budget -= chunk;
  }
  return true;
}

bool admit_front_chunk(ReplicaState& state, StepPlan& plan, uint32_t hit, uint64_t& budget) {
  const uint32_t slot = state.waiting().front();
  const Sequence& s = state.seq(slot);
  const auto chunk = static_cast<uint32_t>(std::min<uint64_t>(s.target - hit, budget));
  if (!state.admit_front(uint64_t{hit} + chunk))
    return false;
  plan.add_prefill(state.seq(slot), slot, chunk);
  budget -= chunk;
  return true;
}

}  // namespace internal

namespace {

using internal::admit_front_chunk;
using internal::continue_prompts;
using internal::decode_if_idle;
using internal::front_fits_at_all;
using internal::plan_decodes;
using internal::plan_decodes_and_budget;
using internal::swap_in;

class ContinuousBatching final : public Scheduler {
 public:
  explicit ContinuousBatching(SchedulerLimits limits) : limits_(limits) {}

  void plan(ReplicaState& state, StepPlan& plan) override {
    plan.clear();
    const uint32_t lookahead = limits_.decode_tokens;
    uint64_t budget = plan_decodes_and_budget(state, plan, limits_);
    if (!swap_in(state, plan, limits_))
      return decode_if_idle(state, plan, lookahead);
    while (state.running().size() < limits_.max_batch && front_fits_at_all(state, lookahead)) {
      const uint32_t slot = state.waiting().front();
      const Sequence& s = state.seq(slot);
      const uint32_t need = s.target - state.front_hit();
      // A prompt longer than the budget left runs as the step's only
      // prefill (beside the decodes), so it cannot block the queue until
      // the running batch drains.
      if (need > budget && plan.shape.prefill_sequences > 0)
        break;
      if (!state.admit_front(s.target))
        break;
      plan.add_prefill(state.seq(slot), slot, need);
      budget -= std::min<uint64_t>(need, budget);
    }
    decode_if_idle(state, plan, lookahead);
  }

 private:
  SchedulerLimits limits_;
};

class ChunkedPrefill final : public Scheduler {
 public:
  explicit ChunkedPrefill(SchedulerLimits limits) : limits_(limits) {}

  void plan(ReplicaState& state, StepPlan& plan) override {
    plan.clear();
    const uint32_t lookahead = limits_.decode_tokens;
    uint64_t budget = plan_decodes_and_budget(state, plan, limits_);
    if (!continue_prompts(state, plan, budget) || !swap_in(state, plan, limits_))
      return decode_if_idle(state, plan, lookahead);
    while (budget > 0 && state.running().size() < limits_.max_batch &&
           front_fits_at_all(state, lookahead)) {
      if (!admit_front_chunk(state, plan, state.front_hit(), budget))
        return decode_if_idle(state, plan, lookahead);
    }
    decode_if_idle(state, plan, lookahead);
  }

 private:
  SchedulerLimits limits_;
};

class StaticBatching final : public Scheduler {
 public:
  explicit StaticBatching(SchedulerLimits limits) : limits_(limits) {}

  void plan(ReplicaState& state, StepPlan& plan) override {
    plan.clear();
    if (state.running().empty())
      start_batch(state, plan);
    else
      decode_batch(state, plan);
  }

 private:
  void start_batch(ReplicaState& state, StepPlan& plan) {
    padded_prompt_ = 0;
    padded_new_ = 0;
    padded_hit_ = 0;
    uint32_t n = 0;
    while (n < limits_.max_batch && !state.waiting().empty()) {
      const uint32_t slot = state.waiting().front();
      const Sequence& s = state.seq(slot);
      const uint64_t whole = uint64_t{s.target} + s.output;
      if (state.blocks_for(whole) > state.blocks_total()) {
        state.reject_front();
        continue;
      }
      // Prefix caching: each prompt's cached head is skipped; the batch
      // pads the new tokens to the longest and the cached ones too.
      const uint32_t hit = state.front_hit();
      const uint32_t padded = std::max(padded_prompt_, s.target);
      const uint32_t padded_new = std::max(padded_new_, s.target - hit);
      if (n > 0 && uint64_t{padded_new} * (n + 1) > limits_.max_tokens_per_step)
        break;
      if (!state.admit_front(whole))
        break;
      padded_prompt_ = padded;
      padded_new_ = padded_new;
      padded_hit_ = std::max(padded_hit_, hit);
      ++n;
    }
    if (n == 0)
      return;
    batch_ = n;
    decode_steps_ = 0;
    for (const uint32_t slot : state.running()) {
      const Sequence& s = state.seq(slot);
      plan.work.push_back(Work{slot, s.target - s.cached, true});
    }
    plan.shape.prefill_sequences = n;
    plan.shape.prefill_tokens = uint64_t{padded_new_} * n;
    plan.shape.prefill_context_tokens = uint64_t{padded_hit_} * n;
  }

  // Every sequence still running decodes; the step is costed as the whole
  // padded batch at the padded context.
  void decode_batch(ReplicaState& state, StepPlan& plan) {
    for (const uint32_t slot : state.running())
      plan.work.push_back(Work{slot, 1, false});
    plan.shape.decode_sequences = batch_;
    plan.shape.decode_context_tokens = uint64_t{batch_} * (padded_prompt_ + decode_steps_);
    ++decode_steps_;
  }

  SchedulerLimits limits_;
  uint32_t padded_prompt_ = 0;
  uint32_t padded_new_ = 0;  // prompt tokens past the prefix cache's hit
  uint32_t padded_hit_ = 0;  // the largest hit
  uint32_t batch_ = 0;
  uint32_t decode_steps_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> make_scheduler(config::SchedulerKind kind, SchedulerLimits limits,
                                          const SchedulerContext& context) {
  switch (kind) {
    case config::SchedulerKind::kDeadline:
      return make_deadline_scheduler(limits, context);
    case config::SchedulerKind::kStatic:
      return std::make_unique<StaticBatching>(limits);
    case config::SchedulerKind::kChunkedPrefill:
      return std::make_unique<ChunkedPrefill>(limits);
    case config::SchedulerKind::kContinuous:
      break;
  }
  return std::make_unique<ContinuousBatching>(limits);
}

}  // namespace podsim::fleet
