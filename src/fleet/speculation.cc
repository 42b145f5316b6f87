#include "fleet/speculation.h"

#include <cmath>

namespace podsim::fleet {

uint32_t Acceptance::draw(Rng& rng) const {
  uint32_t accepted = 0;
  for (const double p : p_) {
    // p = 1 accepts and p = 0 rejects without a draw, so the edge cases are
    // exact and cost no random numbers.
    if (p <= 0 || (p < 1 && rng.uniform() >= p))
      break;
    ++accepted;
  }
  return accepted;
}

double Acceptance::expected_tokens() const {
  double sum = 1;
  double all = 1;  // probability that every draft so far was accepted
  for (const double p : p_) {
    all *= p;
    sum += all;
  }
  return sum;
}

double expected_tokens_closed_form(double a, uint32_t k) {
  if (a >= 1)
    return k + 1.0;
  return (1 - std::pow(a, k + 1.0)) / (1 - a);
}

}  // namespace podsim::fleet
