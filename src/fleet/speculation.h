// Speculative decoding's acceptance (docs/serving.md, "Speculative
// decoding"): each decode step of a sequence drafts k tokens and the
// target's verification pass accepts a prefix of them, then adds its own
// next token. Draft i (0-based) is accepted with probability p_i given that
// drafts 0..i-1 were (a constant rate: p_i = a for every i), and stops at
// the first rejection, so a step produces 1 + (accepted drafts) tokens:
//
//   E[tokens per step] = 1 + sum_{i=1..k} prod_{j<i+1} p_j,
//   constant rate a:     (1 - a^(k+1)) / (1 - a)   (k + 1 at a = 1).
//
// Draws are deterministic for a seed (fleet/rng.h), one uniform per draft
// position examined.
#pragma once

#include <cstdint>
#include <vector>

#include "fleet/rng.h"

namespace podsim::fleet {

class Acceptance {
 public:
  // p[i]: conditional acceptance of draft position i; k = p.size().
  explicit Acceptance(std::vector<double> p) : p_(std::move(p)) {}

  uint32_t draft_tokens() const { return static_cast<uint32_t>(p_.size()); }
  // Drafts accepted in one verification, in [0, k].
  uint32_t draw(Rng& rng) const;
  // The expected tokens a verification produces (accepted drafts plus the
  // target's own), summed in position order.
  double expected_tokens() const;

 private:
  std::vector<double> p_;
};

// E[tokens per step] for a constant rate a and k drafts, in closed form.
double expected_tokens_closed_form(double a, uint32_t k);

}  // namespace podsim::fleet
