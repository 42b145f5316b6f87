// The shipped pricing files (topologies/pricing/) load, and the Google Cloud
// one prices every chip the shipped topologies use, on demand, except the
// chips Google publishes no price for, which its comments name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "config/pricing_loader.h"
#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using testing::source_dir;
using ::testing::StartsWith;

const char* const kGoogleCloud = "topologies/pricing/google-cloud-2026.textproto";

// Chips of shipped topologies with no public on-demand price. Each must be
// named in the file's comments, and must indeed have no on-demand price
// there (remove it here when a price is added).
const std::set<std::string>& unpriced_chips() {
  static const std::set<std::string> kUnpriced = {"TPU7x"};
  return kUnpriced;
}

// The chip names of every topologies/*.textproto.
std::set<std::string> shipped_chips() {
  std::set<std::string> chips;
  for (const auto& file : podsim::testing::textprotos("topologies"))
    chips.insert(load_topology_file(file).chip.name);
  return chips;
}

TEST(ShippedPricingTest, EveryFileLoadsWithTheSchemaHeader) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() / "topologies/pricing")) {
    SCOPED_TRACE(e.path().string());
    ++files;
    EXPECT_THAT(read_file_to_string(e.path()), StartsWith("# proto-file: podsim/pricing.proto\n"
                                                          "# proto-message: podsim.Pricing\n"));
    const PricingSpec p = load_pricing_file(e.path());
    EXPECT_FALSE(p.prices.empty());
  }
  EXPECT_GE(files, 1);
}

TEST(ShippedPricingTest, GoogleCloudPricesEveryShippedChipOnDemand) {
  const PricingSpec p = load_pricing_file(source_dir() / kGoogleCloud);
  EXPECT_EQ(p.commitment, Commitment::kOnDemand);
  const std::set<std::string> chips = shipped_chips();
  ASSERT_FALSE(chips.empty());
  for (const std::string& chip : chips) {
    SCOPED_TRACE(chip);
    if (unpriced_chips().count(chip) != 0) {
      EXPECT_EQ(price_for(p, chip), nullptr) << "priced now: remove it from unpriced_chips()";
      continue;
    }
    ASSERT_NE(price_for(p, chip), nullptr);
    EXPECT_GT(require_price(p, chip).usd_per_chip_hour, 0);
  }
  for (const std::string& chip : unpriced_chips())
    EXPECT_EQ(chips.count(chip), 1U) << chip << " is no shipped topology's chip";
}

TEST(ShippedPricingTest, GoogleCloudNamesOnlyShippedChipsAndExplainsTheMissingOnes) {
  const PricingSpec p = load_pricing_file(source_dir() / kGoogleCloud);
  const std::set<std::string> chips = shipped_chips();
  for (const ChipPriceSpec& price : p.prices) {
    SCOPED_TRACE(price.chip + " " + std::string(commitment_name(price.commitment)));
    EXPECT_EQ(chips.count(price.chip), 1U) << "not a chip name of topologies/*.textproto";
    // Every figure says when it was read.
    EXPECT_THAT(price.source, ContainsRegex("20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]"));
  }
  const std::string text = read_file_to_string(source_dir() / kGoogleCloud);
  for (const std::string& chip : unpriced_chips())
    EXPECT_THAT(text, HasSubstr("# " + chip + ":")) << "say why the chip has no price";
}

TEST(ShippedPricingTest, GoogleCloudRentalIncludesElectricityButCountsItsCarbon) {
  const PricingSpec p = load_pricing_file(source_dir() / kGoogleCloud);
  EXPECT_TRUE(p.chip_price_includes_electricity);
  EXPECT_GT(p.electricity_usd_per_kwh, 0);  // for owned hardware
  EXPECT_DOUBLE_EQ(p.pue, 1.09);
  EXPECT_DOUBLE_EQ(p.carbon_gco2e_per_kwh, 125);  // 0.03 g / 0.24 Wh
  EXPECT_FALSE(p.source.empty());
}

}  // namespace
}  // namespace podsim::config
