// What a fleet run costs and emits at a pricing file's prices (`podsim serve
// --pricing`, `podsim capacity --pricing`; docs/serving.md, "Energy and
// cost"): every replica copy's chips held for the run's duration, drawing
// its energy, priced with cost::price() (src/cost/cost.h) at its chip's
// price, plus the KV caches' transfer energy at the electricity's price; per
// million output tokens of the completed requests.
#pragma once

#include "config/pricing_spec.h"
#include "config/serve_spec.h"
#include "fleet/summary.h"

namespace podsim::fleet {

struct ServeCost {
  double total_usd = 0;
  double gco2e = 0;
  double usd_per_m_output_tokens = 0;    // 0 with no output token
  double gco2e_per_m_output_tokens = 0;  // 0 with no output token
  double usd_per_hour = 0;               // total_usd over the duration; 0 for a run of no time
};

// Throws the config::InputError of study::pricing_conflict() for the first
// replica entry of `spec` that `pricing` cannot price: its chip has no
// price at the chosen commitment (config::require_price()), or the file
// counts electricity or carbon and the chip has no power model. Call it
// before the run. O(replica entries x prices).
void require_pricing(const config::ServeSpec& spec, const config::PricingSpec& pricing);

// The run's cost: `s` is the summary of a run of `spec`'s replicas (one
// ReplicaSummary per copy, in the spec's order). Precondition:
// require_pricing() found nothing. O(copies + prices x replica entries).
ServeCost serve_cost(const config::ServeSpec& spec, const ServeSummary& s,
                     const config::PricingSpec& pricing);

}  // namespace podsim::fleet
