#include "fleet/replica.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace podsim::fleet {

Replica::Replica(uint32_t index, const ReplicaSetup& setup, RequestListener& listener)
    : index_(index),
      setup_(setup),
      listener_(listener),
      state_(setup.kv_blocks, setup.kv_block_tokens, *this, setup.swap_s_per_token > 0,
             setup.prefix_caching),
      scheduler_(make_scheduler(setup.scheduler, setup.limits,
                                SchedulerContext{setup.timer, setup.admission})),
      acceptance_(setup.acceptance),
      acceptance_rng_(setup.acceptance_seed) {
  if (setup_.timer == nullptr)
    throw std::invalid_argument("a replica needs a step timer");
  if (setup_.limits.decode_tokens != acceptance_.draft_tokens() + 1)
    throw std::invalid_argument("a replica's decode tokens must be its draft tokens + 1");
}

void Replica::enqueue(sim::Simulation& sim, uint32_t request, uint32_t prompt, uint32_t output,
                      uint32_t prefix, sim::Time deadline, sim::Time tpot) {
  state_.enqueue(request, prompt, output, prefix, deadline, tpot);
  if (!busy_)
    start_step(sim);
}

void Replica::enqueue_prefilled(sim::Simulation& sim, const Sequence& s) {
  state_.enqueue_prefilled(s.request, s.prompt, s.output, s.cached, s.generated);
  if (!busy_)
    start_step(sim);
}

void Replica::return_blocks(sim::Simulation& sim, const Sequence& handed_off) {
  account_kv(sim.now());
  state_.return_blocks(handed_off);
  if (!busy_)
    start_step(sim);
}

void Replica::account_kv(sim::Time now) {
  totals_.kv_block_seconds += static_cast<double>(state_.blocks_used()) * (now - kv_since_).to_s();
  kv_since_ = now;
}

void Replica::start_step(sim::Simulation& sim) {
  account_kv(sim.now());
  state_.set_now(sim.now());
  scheduler_->plan(state_, plan_);
  for (const uint32_t r : rejected_)
    listener_.rejected_at(r, sim.now());
  rejected_.clear();
  for (const uint32_t r : shed_)
    listener_.shed_at(r, sim.now());
  shed_.clear();
  if (plan_.work.empty()) {
    // Schedulers always find work for a non-empty batch (docs/serving.md);
    // a replica that stopped with requests in it would report them as never
    // finishing, a wrong answer.
    if (!state_.running().empty() || !state_.waiting().empty())
      throw std::logic_error("replica '" + setup_.name + "' stalled with " +
                             std::to_string(state_.running().size()) + " running and " +
                             std::to_string(state_.waiting().size()) + " waiting requests");
    return;
  }
  const StepCost cost = setup_.timer->cost(plan_.shape);
  sim::Time t = cost.time;
  if (plan_.swap_tokens > 0) {
    // Swaps block the step (vLLM swaps before it runs).
    // Rounded up to the picosecond; past the clock's range a TimeOverflow
    // (refused as bad input by the caller), never a wrapped negative time.
    const sim::Time swap = sim::Time::from_ns_rounded(
        std::ceil(static_cast<double>(plan_.swap_tokens) * setup_.swap_s_per_token * 1e12) * 1e-3);
    t += swap;
    totals_.swapped_tokens += plan_.swap_tokens;
    totals_.swap_time += swap;
  }
  step_mfu_ = t > sim::Time() ? cost.mfu * cost.time.to_us() / t.to_us() : 0;
  if (t <= sim::Time())
    throw std::logic_error("a step of replica '" + setup_.name + "' took no time");
  // Swaps hold the slice at its static power on top of the step's energy.
  step_energy_j_ =
      cost.energy_modelled ? cost.energy_j + setup_.static_watts * (t - cost.time).to_s() : 0.0;
  if (!cost.energy_modelled)
    totals_.energy_modelled = false;
  step_time_ = t;
  busy_ = true;
  step_start_ = sim.now();
  if (steps_ != nullptr)
    steps_->push_back(StepRecord{step_start_, step_start_ + t, plan_.shape, plan_.swap_tokens});
  totals_.peak_batch = std::max(totals_.peak_batch, static_cast<uint32_t>(state_.running().size()));
  totals_.peak_kv_blocks = std::max(totals_.peak_kv_blocks, state_.blocks_used());
  sim.schedule_in(t, *this);
}

void Replica::apply(sim::Time now) {
  // The step's energy, shared by tokens processed (before the sweep frees
  // the finished sequences' slots).
  uint64_t tokens = 0;
  for (const Work& w : plan_.work)
    tokens += w.prefill ? w.tokens : 1;
  if (tokens > 0 && step_energy_j_ > 0) {
    const double per_token = step_energy_j_ / static_cast<double>(tokens);
    for (const Work& w : plan_.work)
      listener_.charged(state_.seq(w.slot).request,
                        per_token * static_cast<double>(w.prefill ? w.tokens : 1));
  }
  for (const Work& w : plan_.work) {
    Sequence& s = state_.seq(w.slot);
    if (w.prefill) {
      s.cached += w.tokens;
      state_.processed(w.tokens);
      totals_.prefill_tokens += w.tokens;
      if (!s.prefilling()) {
        // The prefill's last pass produces the next token.
        if (s.generated++ == 0)
          listener_.first_token(s.request, now);
        listener_.tokens(s.request, 1, now);
        state_.processed(1);
      }
    } else {
      uint32_t produced = 1;
      if (acceptance_.draft_tokens() > 0) {
        // The target keeps the accepted drafts and adds its own next token;
        // the KV cache grows by those tokens only.
        const uint32_t accepted = acceptance_.draw(acceptance_rng_);
        produced = std::min(accepted + 1, s.output - s.generated);
        ++totals_.verifications;
        totals_.drafted_tokens += acceptance_.draft_tokens();
        totals_.accepted_drafts += accepted;
        totals_.verified_tokens += produced;
      }
      s.cached += produced;
      s.generated += produced;
      listener_.tokens(s.request, produced, now);
      state_.processed(produced);
      totals_.decode_tokens += produced;
    }
    state_.computed(w.slot);  // its full blocks are reusable from now on
  }
  state_.sweep_finished([&](uint32_t slot) { listener_.finished(state_.seq(slot).request, now); },
                        setup_.role == ReplicaRole::kPrefill,
                        [&](uint32_t slot) {
                          listener_.handed_off(index_, state_.seq(slot).request, state_.seq(slot),
                                               now);
                        });
}

void Replica::handle(sim::Simulation& sim, uint64_t payload) {
  (void)payload;
  busy_ = false;
  ++totals_.steps;
  totals_.busy += sim.now() - step_start_;
  totals_.flops_seconds += step_mfu_ * (sim.now() - step_start_).to_s();
  totals_.busy_energy_j += step_energy_j_;
  account_kv(sim.now());
  apply(sim.now());
  start_step(sim);
}

double Replica::power_w() const {
  if (!busy_)
    return setup_.static_watts;
  return step_energy_j_ / step_time_.to_s();
}

ReplicaTotals Replica::totals(sim::Time now) const {
  ReplicaTotals t = totals_;
  t.prefill_tokens_saved = state_.prefix_hit_tokens();
  t.cached_blocks_evicted = state_.prefix_blocks_evicted();
  t.kv_block_seconds += static_cast<double>(state_.blocks_used()) * (now - kv_since_).to_s();
  return t;
}

}  // namespace podsim::fleet
