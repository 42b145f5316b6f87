#include "cost/cost.h"

namespace podsim::cost {
namespace {

constexpr double kSecondsPerHour = 3600;
constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kPerMillion = 1e6;

// `amount` per million tokens; 0 when nothing was produced.
double per_million(double amount, double tokens) {
  return tokens == 0 ? 0 : amount / tokens * kPerMillion;
}

}  // namespace

CostFigures price(const config::PricingSpec& pricing, const config::ChipPriceSpec& chip_price,
                  const CostInputs& inputs) {
  CostFigures f;
  f.chip_usd = inputs.chips * chip_price.usd_per_chip_hour * inputs.seconds / kSecondsPerHour;
  const double pue = pricing.pue == 0 ? 1.0 : pricing.pue;
  f.facility_kwh = inputs.joules * pue / kJoulesPerKwh;
  f.electricity_usd = pricing.chip_price_includes_electricity
                          ? 0.0
                          : f.facility_kwh * pricing.electricity_usd_per_kwh;
  f.total_usd = f.chip_usd + f.electricity_usd;
  f.usd_per_m_tokens = per_million(f.total_usd, inputs.tokens);
  f.gco2e = f.facility_kwh * pricing.carbon_gco2e_per_kwh;
  f.gco2e_per_m_tokens = per_million(f.gco2e, inputs.tokens);
  return f;
}

}  // namespace podsim::cost
