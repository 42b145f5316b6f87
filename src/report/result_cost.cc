#include "report/result_cost.h"

#include "cost/cost.h"

namespace podsim::report {

const char* commitment_label(config::Commitment c) {
  switch (c) {
    case config::Commitment::kOnDemand:
      return "on-demand";
    case config::Commitment::kSpot:
      return "spot";
    case config::Commitment::kOneYear:
      return "1-year";
    case config::Commitment::kThreeYear:
      return "3-year";
  }
  return "on-demand";
}

void fill_cost(const config::PricingSpec& pricing, const config::ChipPriceSpec& price, double chips,
               double seconds, double joules, uint64_t tokens, podsim::Cost& out) {
  const cost::CostFigures f =
      cost::price(pricing, price, {chips, seconds, joules, static_cast<double>(tokens)});
  out.set_priced(true);
  out.set_pricing(pricing.name);
  out.set_pricing_date(pricing.date);
  out.set_commitment(commitment_label(pricing.commitment));
  out.set_usd_per_chip_hour(price.usd_per_chip_hour);
  out.set_usd_per_m_tokens(f.usd_per_m_tokens);
  out.set_usd_per_hour(seconds > 0 ? f.total_usd / seconds * 3600.0 : 0.0);
  out.set_gco2e_per_m_tokens(f.gco2e_per_m_tokens);
}

}  // namespace podsim::report
