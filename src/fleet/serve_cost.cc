#include "fleet/serve_cost.h"

#include <stdexcept>

#include "config/pricing_loader.h"
#include "cost/cost.h"
#include "study/pricing.h"

namespace podsim::fleet {

void require_pricing(const config::ServeSpec& spec, const config::PricingSpec& pricing) {
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    if (auto conflict = study::pricing_conflict(r.pod, pricing))
      throw *conflict;
    if (r.speculative.draft_pod) {
      if (auto conflict = study::pricing_conflict(*r.speculative.draft_pod, pricing))
        throw *conflict;
    }
  }
}

ServeCost serve_cost(const config::ServeSpec& spec, const ServeSummary& s,
                     const config::PricingSpec& pricing) {
  ServeCost c;
  const auto tokens = static_cast<double>(s.output_tokens);
  size_t copy = 0;
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    double chips = 0;
    double joules = 0;
    for (uint32_t k = 0; k < r.count; ++k, ++copy) {
      if (copy >= s.replicas.size())
        throw std::logic_error("serve_cost: the summary has fewer replicas than the spec");
      chips += s.replicas[copy].chips;
      joules += s.replicas[copy].energy_j;
    }
    if (r.speculative.draft_pod) {
      // A speculative draft on a slice of its own: its chips at their price
      // (the energy, both slices', is counted with the replica's).
      const auto draft_chips = static_cast<double>(r.speculative.draft_pod->chip_count()) * r.count;
      chips -= draft_chips;
      const config::ChipPriceSpec& dp =
          config::require_price(pricing, r.speculative.draft_pod->chip.name);
      const cost::CostFigures f = cost::price(pricing, dp, {draft_chips, s.duration_s, 0, tokens});
      c.total_usd += f.total_usd;
      c.gco2e += f.gco2e;
    }
    const config::ChipPriceSpec& price = config::require_price(pricing, r.pod.chip.name);
    const cost::CostFigures f = cost::price(pricing, price, {chips, s.duration_s, joules, tokens});
    c.total_usd += f.total_usd;
    c.gco2e += f.gco2e;
  }
  if (s.kv_transfer_energy_j > 0 && !spec.replicas.empty()) {
    // Energy alone: no chip is held for it beyond the replicas'.
    const config::ChipPriceSpec& price =
        config::require_price(pricing, spec.replicas.front().pod.chip.name);
    const cost::CostFigures f =
        cost::price(pricing, price, {0, s.duration_s, s.kv_transfer_energy_j, tokens});
    c.total_usd += f.total_usd;
    c.gco2e += f.gco2e;
  }
  if (tokens > 0) {
    c.usd_per_m_output_tokens = c.total_usd / tokens * 1e6;
    c.gco2e_per_m_output_tokens = c.gco2e / tokens * 1e6;
  }
  if (s.duration_s > 0)
    c.usd_per_hour = c.total_usd / s.duration_s * 3600.0;
  return c;
}

}  // namespace podsim::fleet
