// What a run costs and emits: chips held for a time, the energy they drew
// and the tokens they produced, priced with a pricing file
// (config/pricing_spec.h). Plain arithmetic, no state; one step and a whole
// run are priced alike.
//
// With P the chosen ChipPriceSpec and S the PricingSpec:
//   chip_usd           = chips x P.usd_per_chip_hour x seconds / 3600
//   facility_kwh       = joules x pue / 3.6e6           (pue 0 counts as 1)
//   electricity_usd    = 0 when S.chip_price_includes_electricity,
//                        else facility_kwh x S.electricity_usd_per_kwh
//   total_usd          = chip_usd + electricity_usd
//   usd_per_m_tokens   = total_usd / tokens x 1e6       (0 when tokens == 0)
//   gco2e              = facility_kwh x S.carbon_gco2e_per_kwh
//   gco2e_per_m_tokens = gco2e / tokens x 1e6           (0 when tokens == 0)
// Energy and carbon are counted even when the chip price pays for the
// electricity: the rental hides the bill, not the kilowatt-hours.
#pragma once

#include "config/pricing_spec.h"

namespace podsim::cost {

// One step or a whole run. All finite and >= 0.
struct CostInputs {
  double chips = 0;    // chips held (the whole pod, busy or idle)
  double seconds = 0;  // for how long
  double joules = 0;   // energy at the chips, not including the facility's overhead (PUE)
  double tokens = 0;   // tokens produced
};

struct CostFigures {
  double chip_usd = 0;            // renting (or owning, at the price given) the chips
  double electricity_usd = 0;     // the facility's electricity; 0 when the chip price includes it
  double total_usd = 0;           // chip_usd + electricity_usd
  double usd_per_m_tokens = 0;    // total_usd per million tokens
  double facility_kwh = 0;        // the chips' energy times PUE
  double gco2e = 0;               // grams of CO2 equivalent of facility_kwh
  double gco2e_per_m_tokens = 0;  // gco2e per million tokens
};

// The formulas above. `chip_price` is the chip's price at the run's
// commitment (config::require_price()); it need not belong to `pricing`.
// O(1).
CostFigures price(const config::PricingSpec& pricing, const config::ChipPriceSpec& chip_price,
                  const CostInputs& inputs);

}  // namespace podsim::cost
