#include "fleet/deadline_scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "fleet/scheduler_steps.h"

namespace podsim::fleet {
namespace {

using internal::admit_front_chunk;
using internal::continue_prompts;
using internal::decode_if_idle;
using internal::front_fits_at_all;
using internal::plan_decodes_and_budget;
using internal::swap_in;

class Deadline final : public Scheduler {
 public:
  Deadline(SchedulerLimits limits, const SchedulerContext& context)
      : limits_(limits), context_(context) {
    if (context_.timer == nullptr)
      throw std::invalid_argument("the DEADLINE scheduler needs the replica's step timer");
  }

  void plan(ReplicaState& state, StepPlan& plan) override {
    state.order_by_deadline(true);
    plan.clear();
    const uint32_t lookahead = limits_.decode_tokens;
    uint64_t budget = protect_decodes(state, plan, plan_decodes_and_budget(state, plan, limits_));
    full_budget_ = std::max<uint64_t>(budget, 1);
    full_step_ = sim::Time();
    decodes_ = plan.shape;
    if (!continue_prompts(state, plan, budget) || !swap_in(state, plan, limits_))
      return decode_if_idle(state, plan, lookahead);
    while (budget > 0 && state.running().size() < limits_.max_batch &&
           front_fits_at_all(state, lookahead)) {
      const Sequence& s = state.seq(state.waiting().front());
      const uint32_t hit = state.front_hit();  // prefix caching: its cached head
      if (late(state, plan, s.target - hit, s, budget)) {
        if (context_.admission == config::AdmissionKind::kRejectLate)
          state.reject_front(true);
        else
          state.defer_front();
        continue;
      }
      if (!admit_front_chunk(state, plan, hit, budget))
        return decode_if_idle(state, plan, lookahead);
    }
    decode_if_idle(state, plan, lookahead);
  }

 private:
  // The step's time with the decodes planned so far and a prefill chunk of
  // `tokens` new tokens (one sequence, nothing cached).
  sim::Time step_with(const StepShape& planned, uint64_t tokens) const {
    StepShape shape = planned;
    shape.prefill_sequences += 1;
    shape.prefill_tokens += tokens;
    return context_.timer->cost(shape).time;
  }

  // The prefill budget that keeps the step within the tightest TPOT
  // objective of the sequences decoding in it.
  uint64_t protect_decodes(const ReplicaState& state, const StepPlan& plan, uint64_t budget) const {
    sim::Time tightest = sim::Time::max();
    for (const uint32_t slot : state.running()) {
      const Sequence& s = state.seq(slot);
      if (!s.prefilling() && s.tpot > sim::Time())
        tightest = std::min(tightest, s.tpot);
    }
    if (tightest == sim::Time::max())
      return budget;
    const uint64_t floor = state.block_tokens();
    while (budget > floor && step_with(plan.shape, budget) > tightest)
      budget = std::max(floor, budget / 2);
    return budget;
  }

  // Whether a new request at the front, `need` prompt tokens to prefill,
  // would produce its first token after its deadline (never for deferred
  // ones, nor without a deadline): its first chunk in this step, the rest in
  // whole-budget steps after it.
  bool late(const ReplicaState& state, const StepPlan& plan, uint64_t need, const Sequence& s,
            uint64_t budget) {
    if (context_.admission == config::AdmissionKind::kAdmitAll || s.deferred || s.admitted_once ||
        s.deadline == sim::Time::max())
      return false;
    const uint64_t chunk = std::min<uint64_t>(need, budget);
    double predicted_ps = static_cast<double>(state.now().count_ps()) +
                          static_cast<double>(step_with(plan.shape, chunk).count_ps());
    if (need > chunk) {
      if (full_step_ == sim::Time())
        full_step_ = step_with(decodes_, full_budget_);
      const uint64_t more = (need - chunk + full_budget_ - 1) / full_budget_;
      predicted_ps += static_cast<double>(more) * static_cast<double>(full_step_.count_ps());
    }
    return predicted_ps > static_cast<double>(s.deadline.count_ps());
  }

  SchedulerLimits limits_;
  SchedulerContext context_;
  uint64_t full_budget_ = 1;  // this step's prefill budget, after decode protection
  sim::Time full_step_;       // a step of it (0: not costed yet)
  StepShape decodes_;         // this step's decodes alone
};

}  // namespace

std::unique_ptr<Scheduler> make_deadline_scheduler(SchedulerLimits limits,
                                                   const SchedulerContext& context) {
  return std::make_unique<Deadline>(limits, context);
}

}  // namespace podsim::fleet
