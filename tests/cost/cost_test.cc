// The formulas of cost/cost.h, each against figures worked by hand.
#include "cost/cost.h"

#include <gtest/gtest.h>

#include <cmath>

namespace podsim::cost {
namespace {

// Equal within a few parts in 1e12: the formulas chain several products.
void expect_close(double got, double want) {
  EXPECT_NEAR(got, want, 1e-12 * std::abs(want) + 1e-15) << "want " << want;
}

config::PricingSpec pricing(bool includes_electricity = false, double pue = 1.1) {
  config::PricingSpec p;
  p.name = "test";
  p.date = "2026-01-15";
  p.electricity_usd_per_kwh = 0.1;
  p.chip_price_includes_electricity = includes_electricity;
  p.pue = pue;
  p.carbon_gco2e_per_kwh = 400;
  return p;
}

config::ChipPriceSpec chip_price(double usd_per_chip_hour = 1.2) {
  return config::ChipPriceSpec{"TPU v5e", config::Commitment::kOnDemand, usd_per_chip_hour, "s"};
}

// 256 chips for half an hour drawing 7.2 MJ (2 kWh at the chips) and
// producing a million tokens.
constexpr CostInputs kRun{256, 1800, 7.2e6, 1e6};

TEST(CostTest, ChipDollarsAreChipsTimesPriceTimesHours) {
  // 256 chips x $1.20 x 0.5 h = $153.60.
  expect_close(price(pricing(), chip_price(), kRun).chip_usd, 153.6);
  // One chip for one second at $3600 an hour: $1.
  expect_close(price(pricing(), chip_price(3600), CostInputs{1, 1, 0, 0}).chip_usd, 1.0);
}

TEST(CostTest, FacilityEnergyIsChipEnergyTimesPue) {
  // 7.2e6 J x 1.1 / 3.6e6 J per kWh = 2.2 kWh.
  expect_close(price(pricing(), chip_price(), kRun).facility_kwh, 2.2);
  // PUE 0 (a hand-built spec that left it unset) counts as 1: 2 kWh.
  expect_close(price(pricing(false, 0), chip_price(), kRun).facility_kwh, 2.0);
  expect_close(price(pricing(false, 1), chip_price(), kRun).facility_kwh, 2.0);
}

TEST(CostTest, ElectricityIsFacilityEnergyTimesItsPrice) {
  // 2.2 kWh x $0.10 = $0.22.
  const CostFigures f = price(pricing(), chip_price(), kRun);
  expect_close(f.electricity_usd, 0.22);
  // Total: $153.60 + $0.22.
  expect_close(f.total_usd, 153.82);
}

TEST(CostTest, ElectricityIncludedInTheChipPriceAddsNothingButStillEmits) {
  const CostFigures f = price(pricing(true), chip_price(), kRun);
  EXPECT_EQ(f.electricity_usd, 0);
  expect_close(f.total_usd, 153.6);
  // The energy and its carbon are still there: 2.2 kWh, 2.2 x 400 g = 880 g.
  expect_close(f.facility_kwh, 2.2);
  expect_close(f.gco2e, 880);
}

TEST(CostTest, PerMillionTokens) {
  // A million tokens: the totals themselves.
  const CostFigures million = price(pricing(), chip_price(), kRun);
  expect_close(million.usd_per_m_tokens, 153.82);
  expect_close(million.gco2e_per_m_tokens, 880);
  // 200,000 tokens: five times as much per million ($769.10, 4,400 g).
  const CostFigures fifth = price(pricing(), chip_price(), CostInputs{256, 1800, 7.2e6, 2e5});
  expect_close(fifth.usd_per_m_tokens, 769.1);
  expect_close(fifth.gco2e_per_m_tokens, 4400);
}

TEST(CostTest, CarbonIsFacilityEnergyTimesIntensity) {
  // 2.2 kWh x 400 g/kWh = 880 g; a carbon intensity of 0 accounts none.
  expect_close(price(pricing(), chip_price(), kRun).gco2e, 880);
  config::PricingSpec none = pricing();
  none.carbon_gco2e_per_kwh = 0;
  EXPECT_EQ(price(none, chip_price(), kRun).gco2e, 0);
}

TEST(CostTest, NoTokensGiveZeroPerMillionNotInfinity) {
  const CostFigures f = price(pricing(), chip_price(), CostInputs{256, 1800, 7.2e6, 0});
  EXPECT_EQ(f.usd_per_m_tokens, 0);
  EXPECT_EQ(f.gco2e_per_m_tokens, 0);
  expect_close(f.total_usd, 153.82);  // the run still costs
}

TEST(CostTest, NothingHeldCostsNothing) {
  const CostFigures f = price(pricing(), chip_price(), CostInputs{0, 0, 0, 0});
  EXPECT_EQ(f.chip_usd, 0);
  EXPECT_EQ(f.electricity_usd, 0);
  EXPECT_EQ(f.total_usd, 0);
  EXPECT_EQ(f.facility_kwh, 0);
  EXPECT_EQ(f.gco2e, 0);
}

}  // namespace
}  // namespace podsim::cost
