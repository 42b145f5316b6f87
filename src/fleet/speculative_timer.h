// Step times under speculative decoding (docs/serving.md, "Speculative
// decoding"): a StepTimer over three others, so the replica, its scheduler
// and the memos stay as they are.
//
// A step with d decoding sequences (cached tokens C in all) and a prefill
// part P is, in this order on the replica:
//  - the draft's k decode steps of the d sequences, the i-th at C + i x d
//    cached tokens (the draft runs one token at a time);
//  - the draft's prefill of P (the draft keeps a KV cache of every prompt);
//  - the target's verification: a prefill of d sequences of k + 1 new tokens
//    each on C cached tokens, every new token scored by the LM head
//    (`verify`, a memo whose scenarios set score_every_token);
//  - the target's prefill of P (`target`, the replica's ordinary memo).
// They run one after another, so the times add. With the draft on chips of
// its own, each side's slice also draws its static (idle and host) power
// while the other side runs; on shared chips every part's energy is already
// the whole slice's. A step without decodes is the target's and the
// draft's prefill.
#pragma once

#include <cstdint>

#include "fleet/step_timer.h"

namespace podsim::fleet {

struct SpeculativeParts {
  StepTimer* target = nullptr;  // the replica's memo: prefill parts
  StepTimer* verify = nullptr;  // the target scoring every token: verification as a prefill
  StepTimer* draft = nullptr;   // the draft model (MTP layers, or a model of its own)
  uint32_t draft_tokens = 1;    // k
  // The draft on a slice of its own: each slice's static power (watts).
  bool separate_draft = false;
  double target_static_watts = 0;
  double draft_static_watts = 0;
};

class SpeculativeTimer final : public StepTimer {
 public:
  explicit SpeculativeTimer(const SpeculativeParts& parts);

  sim::Time step_time(const StepShape& shape) override { return cost(shape).time; }
  // The parts' times and energies added (plus cross static power with a
  // separate draft), their utilisations time-weighted.
  StepCost cost(const StepShape& shape) override;

  // The verification part of a step's decodes, as the prefill shape the
  // `verify` timer costs (for tests).
  StepShape verification(const StepShape& shape) const;

 private:
  SpeculativeParts parts_;
};

}  // namespace podsim::fleet
