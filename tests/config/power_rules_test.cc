// A chip's power model (topology.proto Power; docs/energy.md): the loader's
// rules, the clock knob's operating point by the alpha-power law
// (config/dvfs.h), and the shipped topologies' models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "config/dvfs.h"
#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using testing::IsDiagnostic;
using testing::load;
using testing::text_errors;
using testing::valid_topology;

podsim::Topology with_power() {
  auto t = valid_topology();
  podsim::Power& p = *t.mutable_chip()->mutable_power();
  p.set_idle_watts(50);
  p.set_host_watts(20);
  p.set_mxu_bf16_pj_per_flop(0.2);
  p.set_hbm_pj_per_byte(30);
  p.set_source("test figures");
  return t;
}

TEST(PowerRulesTest, AValidModelLoadsAtTheNominalPoint) {
  const PowerSpec p = load(with_power()).chip.power;
  EXPECT_TRUE(p.modelled);
  EXPECT_EQ(p.idle_watts, 50);
  EXPECT_EQ(p.mxu_bf16_pj_per_flop, 0.2);
  EXPECT_EQ(p.clock_factor, 1.0);
  EXPECT_EQ(p.voltage, 1.0);
}

TEST(PowerRulesTest, NoFiguresIsNoModel) {
  EXPECT_FALSE(load(valid_topology()).chip.power.modelled);
}

TEST(PowerRulesTest, NegativeOrNonFiniteFiguresAreRefused) {
  auto t = with_power();
  t.mutable_chip()->mutable_power()->set_hbm_pj_per_byte(-1);
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.hbm_pj_per_byte", ">= 0")));
  t = with_power();
  t.mutable_chip()->mutable_power()->set_idle_watts(std::nan(""));
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.idle_watts", "")));
}

TEST(PowerRulesTest, FiguresNeedASource) {
  auto t = with_power();
  t.mutable_chip()->mutable_power()->clear_source();
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.source", "must cite")));
}

TEST(PowerRulesTest, TheClockKnobAndVoltageLawMustBeInRange) {
  auto t = with_power();
  t.mutable_chip()->mutable_power()->set_clock_factor(2);
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.clock_factor", "[0.1, 1.5]")));
  t = with_power();
  t.mutable_chip()->mutable_power()->set_alpha(0.5);
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.alpha", "[1, 2]")));
  t = with_power();
  t.mutable_chip()->mutable_power()->set_threshold_voltage(0.5);
  t.mutable_chip()->mutable_power()->set_min_voltage(0.4);
  EXPECT_THAT(text_errors(t),
              Contains(IsDiagnostic("chip.power.min_voltage", "(threshold_voltage, 1]")));
}

TEST(PowerRulesTest, AModelOverThePublishedMaximumIsRefused) {
  auto t = with_power();
  // valid_topology()'s chip at its 40.96 TFLOP/s bf16 peak and the idle
  // power: 50 + 0.2 x 40.96 = 58.2 W, over 55 W.
  t.mutable_chip()->mutable_power()->set_tdp_watts(55);
  EXPECT_THAT(text_errors(t), Contains(IsDiagnostic("chip.power.tdp_watts", "over the chip's")));
  t.mutable_chip()->mutable_power()->set_tdp_watts(1e4);
  EXPECT_TRUE(load(t).chip.power.modelled);
}

TEST(PowerRulesTest, TheClockKnobScalesTheClockPeaksAndEnergies) {
  auto t = with_power();
  t.mutable_chip()->mutable_power()->set_clock_factor(0.5);
  const ChipSpec nominal = load(with_power()).chip;
  const ChipSpec slow = load(t).chip;
  const double v = voltage_for_clock(0.5, {});
  EXPECT_DOUBLE_EQ(slow.power.voltage, v);
  EXPECT_DOUBLE_EQ(slow.mxu_clock_hz, nominal.mxu_clock_hz / 2);
  EXPECT_DOUBLE_EQ(slow.peak_bf16_flops, nominal.peak_bf16_flops / 2);
  EXPECT_DOUBLE_EQ(slow.power.mxu_bf16_pj_per_flop, 0.2 * v * v);
  EXPECT_DOUBLE_EQ(slow.power.idle_watts, 50 * v);
  EXPECT_EQ(slow.power.hbm_pj_per_byte, 30);  // HBM does not follow the core clock
  EXPECT_EQ(slow.power.host_watts, 20);
  EXPECT_EQ(slow.hbm_bandwidth, nominal.hbm_bandwidth);
}

TEST(VoltageLawTest, TheNominalClockRunsAtTheNominalVoltage) {
  EXPECT_EQ(voltage_for_clock(1.0, {}), 1.0);
  EXPECT_DOUBLE_EQ(clock_at_voltage(1.0, {}), 1.0);
}

TEST(VoltageLawTest, TheVoltageFoundRunsTheClockAskedInClosedForm) {
  // f(v) = ((v - vt)^a / v) / (1 - vt)^a: the voltage found gives the clock
  // back wherever it is above the floor.
  const VoltageLaw law{0.3, 1.3, 0.5};
  for (const double f : {0.6, 0.8, 0.9, 1.1, 1.3}) {
    const double v = voltage_for_clock(f, law);
    EXPECT_NEAR(clock_at_voltage(v, law), f, 1e-9) << f;
    EXPECT_NEAR(std::pow(v - 0.3, 1.3) / v / std::pow(0.7, 1.3), f, 1e-9) << f;
  }
}

TEST(VoltageLawTest, VoltageRisesWithTheClockAndStopsAtTheFloor) {
  const VoltageLaw law{0.3, 1.3, 0.6};
  double last = 0;
  for (double f = 0.1; f <= 1.5; f += 0.05) {
    const double v = voltage_for_clock(f, law);
    EXPECT_GE(v, last) << f;
    EXPECT_GE(v, 0.6) << f;
    last = v;
  }
  EXPECT_EQ(voltage_for_clock(0.1, law), 0.6);  // below the floor's clock
  // The square law (alpha 2, no threshold): f = v, exactly.
  EXPECT_NEAR(voltage_for_clock(0.8, {0.0, 2.0, 0.1}), 0.8, 1e-9);
}

TEST(ShippedPowerTest, EveryShippedChipHasOneCitedPowerModel) {
  std::map<std::string, PowerSpec> by_chip;
  for (const auto& file : podsim::testing::textprotos("topologies")) {
    SCOPED_TRACE(file.string());
    const PodSpec pod = load_topology_file(file);
    const PowerSpec& p = pod.chip.power;
    EXPECT_TRUE(p.modelled);
    EXPECT_FALSE(p.source.empty());
    EXPECT_GT(p.idle_watts, 0);
    EXPECT_GT(p.host_watts, 0);
    EXPECT_GT(p.mxu_bf16_pj_per_flop, 0);
    EXPECT_GT(p.hbm_pj_per_byte, 0);
    EXPECT_GT(p.ici_pj_per_byte_per_hop, 0);
    // A dtype's energy is set exactly when the chip has its path.
    EXPECT_EQ(p.mxu_int8_pj_per_op > 0, pod.chip.peak_int8_ops > 0);
    EXPECT_EQ(p.mxu_fp8_pj_per_flop > 0, pod.chip.peak_fp8_flops > 0);
    const auto [it, added] = by_chip.emplace(pod.chip.name, p);
    EXPECT_TRUE(added || it->second == p) << pod.chip.name << " has two power models";
  }
  EXPECT_EQ(by_chip.size(), 5u);
  // The one published maximum: TPU v4's 192 W, which the loader checks.
  EXPECT_EQ(by_chip.at("TPU v4").tdp_watts, 192);
}

}  // namespace
}  // namespace podsim::config
