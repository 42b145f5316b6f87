// How long one step of a replica takes, and the energy it draws: the fleet
// layer's only question to the layers below, behind a small interface so
// tests can supply a formula (tests/fleet) and `podsim serve` the pod
// simulation (fleet/step_memo.h).
//
// A step may mix sequences in prefill (new prompt tokens, possibly a chunk,
// possibly after earlier chunks) with sequences decoding one token each
// (continuous batching). Its shape is given by totals, so a schedule of any
// size describes its step in O(1) space.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace podsim::fleet {

struct StepShape {
  // Sequences that process prompt tokens in this step, the tokens they
  // process together, and the tokens already in their KV caches before it.
  uint32_t prefill_sequences = 0;
  uint64_t prefill_tokens = 0;
  uint64_t prefill_context_tokens = 0;
  // Sequences that decode one token each, and their cached tokens together.
  uint32_t decode_sequences = 0;
  uint64_t decode_context_tokens = 0;

  bool empty() const { return prefill_sequences == 0 && decode_sequences == 0; }
  friend bool operator==(const StepShape&, const StepShape&) = default;
};

// A step's time, its model FLOP utilisation (useful FLOPs over time x
// chips x peak; 0 when the timer does not know) and its energy: the whole
// replica slice's joules over the step, idle and host power included
// (engine/energy.h), when `energy_modelled` (0 and false when the timer
// does not know: a chip with no power model, a formula without one).
struct StepCost {
  StepCost(sim::Time t = {}, double utilisation = 0, double joules = 0, bool modelled = false)
      : time(t), mfu(utilisation), energy_j(joules), energy_modelled(modelled) {}
  sim::Time time;
  double mfu = 0;
  double energy_j = 0;
  bool energy_modelled = false;
};

class StepTimer {
 public:
  virtual ~StepTimer() = default;
  // > 0 for a non-empty shape. May throw (a step the engine cannot lower).
  virtual sim::Time step_time(const StepShape& shape) = 0;
  // The time with its utilisation; by default step_time() and 0.
  virtual StepCost cost(const StepShape& shape) { return StepCost(step_time(shape)); }
};

}  // namespace podsim::fleet
