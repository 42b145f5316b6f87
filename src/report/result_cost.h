// The cost part of podsim.Result (proto/podsim/result.proto Cost): a step's
// chips, time and energy priced with a pricing file (cost/cost.h).
#pragma once

#include <cstdint>

#include "config/pricing_spec.h"
#include "podsim/result.pb.h"

namespace podsim::report {

// "on-demand", "spot", "1-year", "3-year": as --commitment spells it.
const char* commitment_label(config::Commitment c);

// `chips` held for `seconds`, drawing `joules` (at the chips), producing
// `tokens`, at `price` from `pricing`.
void fill_cost(const config::PricingSpec& pricing, const config::ChipPriceSpec& price, double chips,
               double seconds, double joules, uint64_t tokens, podsim::Cost& out);

}  // namespace podsim::report
