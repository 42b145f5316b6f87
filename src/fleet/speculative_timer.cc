#include "fleet/speculative_timer.h"

#include <stdexcept>

namespace podsim::fleet {
namespace {

// Sums parts of a step, on the target's slice or the draft's.
struct Sum {
  sim::Time time;
  sim::Time draft_time;  // of it, on the draft's own slice
  double flops_us = 0;
  double joules = 0;
  bool modelled = true;

  void add(const StepCost& c, bool on_draft) {
    time += c.time;
    if (on_draft)
      draft_time += c.time;
    flops_us += c.mfu * c.time.to_us();
    joules += c.energy_j;
    modelled = modelled && c.energy_modelled;
  }
};

StepShape prefill_part(const StepShape& s) {
  StepShape p;
  p.prefill_sequences = s.prefill_sequences;
  p.prefill_tokens = s.prefill_tokens;
  p.prefill_context_tokens = s.prefill_context_tokens;
  return p;
}

}  // namespace

SpeculativeTimer::SpeculativeTimer(const SpeculativeParts& parts) : parts_(parts) {
  if (parts_.target == nullptr || parts_.verify == nullptr || parts_.draft == nullptr)
    throw std::invalid_argument("speculative decoding needs a target, a verify and a draft timer");
  if (parts_.draft_tokens == 0)
    throw std::invalid_argument("speculative decoding needs at least one draft token");
}

StepShape SpeculativeTimer::verification(const StepShape& shape) const {
  StepShape v;
  v.prefill_sequences = shape.decode_sequences;
  v.prefill_tokens = uint64_t{shape.decode_sequences} * (parts_.draft_tokens + 1);
  v.prefill_context_tokens = shape.decode_context_tokens;
  return v;
}

StepCost SpeculativeTimer::cost(const StepShape& shape) {
  Sum sum;
  const uint32_t d = shape.decode_sequences;
  if (d > 0) {
    for (uint32_t i = 0; i < parts_.draft_tokens; ++i) {
      StepShape draft;
      draft.decode_sequences = d;
      draft.decode_context_tokens = shape.decode_context_tokens + uint64_t{i} * d;
      sum.add(parts_.draft->cost(draft), parts_.separate_draft);
    }
  }
  if (shape.prefill_sequences > 0)
    sum.add(parts_.draft->cost(prefill_part(shape)), parts_.separate_draft);
  if (d > 0)
    sum.add(parts_.verify->cost(verification(shape)), false);
  if (shape.prefill_sequences > 0)
    sum.add(parts_.target->cost(prefill_part(shape)), false);
  if (parts_.separate_draft) {
    // The idle side's slice keeps drawing its static power.
    sum.joules += parts_.target_static_watts * sum.draft_time.to_s() +
                  parts_.draft_static_watts * (sum.time - sum.draft_time).to_s();
  }
  const bool modelled = sum.modelled && sum.time > sim::Time();
  return StepCost(sum.time, sum.time > sim::Time() ? sum.flops_us / sum.time.to_us() : 0,
                  modelled ? sum.joules : 0.0, modelled);
}

}  // namespace podsim::fleet
