// A validated pricing file (proto/podsim/pricing.proto): what each chip costs
// per hour under each commitment, what electricity costs and emits, each
// figure cited, as config/pricing_loader.h loads it. src/cost turns a run's
// chip-hours and joules into dollars and grams of CO2e with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace podsim::config {

// How the chips are bought (podsim.Commitment).
enum class Commitment { kOnDemand, kSpot, kOneYear, kThreeYear };

// The value as a pricing file writes it: "COMMITMENT_ON_DEMAND",
// "COMMITMENT_SPOT", "COMMITMENT_1_YEAR", "COMMITMENT_3_YEAR".
constexpr std::string_view commitment_name(Commitment c) {
  switch (c) {
    case Commitment::kOnDemand:
      return "COMMITMENT_ON_DEMAND";
    case Commitment::kSpot:
      return "COMMITMENT_SPOT";
    case Commitment::kOneYear:
      return "COMMITMENT_1_YEAR";
    case Commitment::kThreeYear:
      return "COMMITMENT_3_YEAR";
  }
  return "COMMITMENT_ON_DEMAND";
}

// One chip's price under one commitment.
struct ChipPriceSpec {
  std::string chip;  // as topologies name it (ChipSpec::name)
  Commitment commitment = Commitment::kOnDemand;
  double usd_per_chip_hour = 0;  // >= 0
  std::string source;            // the citation, with its date

  friend bool operator==(const ChipPriceSpec&, const ChipPriceSpec&) = default;
};

struct PricingSpec {
  std::string name;
  std::string description;
  std::string date;           // YYYY-MM-DD: when the prices were read
  std::string source_file;    // as the user named it
  std::string source_sha256;  // hex SHA-256 of the file's bytes
  // In file order; no two with the same (chip, commitment).
  std::vector<ChipPriceSpec> prices;
  // The commitment a run prices its chips at (price_for()).
  Commitment commitment = Commitment::kOnDemand;
  // Where the file wrote `commitment` (text input; 0 when unknown or not
  // written), so that a chip with no price at it, found when a run is priced,
  // points there.
  int commitment_line = 0;
  int commitment_column = 0;
  double electricity_usd_per_kwh = 0;  // >= 0; of facility energy (chips x pue)
  // True for cloud rental: the chip price pays for the electricity.
  bool chip_price_includes_electricity = false;
  // Power usage effectiveness in [1, 3]; a file's 0 (unset) is 1 here.
  double pue = 1;
  double carbon_gco2e_per_kwh = 0;  // >= 0; of facility energy; 0: not accounted
  std::string source;               // the citations of electricity, pue and carbon

  friend bool operator==(const PricingSpec&, const PricingSpec&) = default;
};

}  // namespace podsim::config
