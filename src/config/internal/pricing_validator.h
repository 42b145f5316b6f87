// The rules of a pricing file (proto/podsim/pricing.proto), listed in
// config/pricing_loader.h.
//
// Internal to src/config: it reads the generated podsim::Pricing message.
// After validate_pricing() returns no issues, the loader's conversion to a
// PricingSpec cannot fail.
#pragma once

#include <string_view>
#include <vector>

#include "config/internal/issue_list.h"

namespace podsim {
class Pricing;
}  // namespace podsim

namespace podsim::config::internal {

// The largest PUE a file may give: real facilities run from about 1.1
// (hyperscale) to about 2 (old enterprise rooms); 3 already means a typo.
inline constexpr double kMaxPue = 3;

// True when `date` is a calendar date written YYYY-MM-DD (year 0001 to 9999,
// the month's real length, 29 February only in leap years). O(1).
bool is_iso_date(std::string_view date);

// Every rule of a pricing file, all violations in one pass. O(prices log prices).
std::vector<FieldIssue> validate_pricing(const podsim::Pricing& pricing);

}  // namespace podsim::config::internal
