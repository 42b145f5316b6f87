// engine/energy.h on hand-made steps: each chip's parts and classes in
// closed form (idle power over each class and after the chip's end, host
// power over the step, work priced per unit, ICI bytes per outgoing link,
// the densest class's power), a replica's figures standing for the chips it
// represents, dead chips drawing nothing.
#include "engine/energy.h"

#include <gtest/gtest.h>

#include "specs.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

config::PowerSpec power() {
  config::PowerSpec p;
  p.modelled = true;
  p.idle_watts = 50;
  p.host_watts = 20;
  p.mxu_bf16_pj_per_flop = 0.5;
  p.hbm_pj_per_byte = 10;
  p.ici_pj_per_byte_per_hop = 40;
  return p;
}

// A chip that computed for 4 us (1e6 FLOPs), streamed HBM for 2 us (1000
// bytes), waited 1 us on a collective, idled 1 us, and ended at 8 us of a
// 10 us step.
ChipBreakdown breakdown() {
  ChipBreakdown b;
  b.end = sim::Time::us(8);
  b.compute = sim::Time::us(4);
  b.memory = sim::Time::us(2);
  b.collective_exposed = sim::Time::us(1);
  b.idle = sim::Time::us(1);
  b.compute_work.mxu_bf16_flops = 1e6;
  b.memory_work.hbm_bytes = 1000;
  return b;
}

TEST(EnergyFormulas, EachChipsPartsAndClassesInClosedForm) {
  const topo::Pod pod(testing::v5e_torus({{"x", 2, false}}));
  StepResult step;
  step.step_time = sim::Time::us(10);
  step.chips = {0, 1};
  step.chip_breakdowns = {breakdown(), breakdown()};
  step.critical_chip = 1;
  step.link_stats.bytes.assign(pod.links().size(), 0);
  step.link_stats.busy.assign(pod.links().size(), sim::Time::zero());
  // Chip 0 sends 500 bytes on its link to chip 1.
  for (topo::LinkId id = 0; id < pod.links().size(); ++id) {
    if (pod.links()[id].src == 0)
      step.link_stats.bytes[id] = 500;
  }
  const StepEnergy e = step_energy(pod, power(), step);
  ASSERT_TRUE(e.modelled);
  EXPECT_EQ(e.powered_chips, 2u);
  const ChipEnergy& c0 = e.chips[0];
  // 1 W x 1 ps = 1 pJ: 50 W over the whole 10 us, 20 W likewise.
  EXPECT_EQ(c0.parts.idle_pj, 50 * 10'000'000);
  EXPECT_EQ(c0.parts.host_pj, 20 * 10'000'000);
  EXPECT_EQ(c0.parts.mxu_pj, 500'000);  // 1e6 x 0.5
  EXPECT_EQ(c0.parts.hbm_pj, 10'000);   // 1000 x 10
  EXPECT_EQ(c0.parts.ici_pj, 20'000);   // 500 x 40
  EXPECT_EQ(e.chips[1].parts.ici_pj, 0);
  // By class: idle power over each class, the tail (2 us) counted idle.
  EXPECT_EQ(c0.classes.compute_pj, 50 * 4'000'000 + 500'000);
  EXPECT_EQ(c0.classes.memory_pj, 50 * 2'000'000 + 10'000);
  EXPECT_EQ(c0.classes.collective_pj, 50 * 1'000'000 + 20'000);
  EXPECT_EQ(c0.classes.idle_pj, 50 * 3'000'000);
  EXPECT_EQ(c0.classes.host_pj, 20 * 10'000'000);
  EXPECT_EQ(c0.classes.total(), c0.parts.total());
  // Peak: idle + host + the denser class (compute: 0.5e6 pJ / 4e6 ps =
  // 0.125 W; memory: 1e4 / 2e6 = 0.005 W) + links averaged (2e4 / 1e7).
  EXPECT_DOUBLE_EQ(c0.peak_watts, 50 + 20 + 0.125 + 0.002);
  EXPECT_EQ(e.parts.total(), c0.parts.total() + e.chips[1].parts.total());
  EXPECT_EQ(e.critical, e.chips[1]);
}

TEST(EnergyFormulas, AFoldedReplicaStandsForTheChipsItRepresents) {
  // Two replicas along y that nothing spans: chip (0,0) simulated stands
  // for (0,1); both draw its energy, and the step's total is twice its.
  const topo::Pod pod(testing::v5e_torus({{"x", 1, false}, {"y", 2, false}}));
  StepResult step;
  step.step_time = sim::Time::us(10);
  step.chips = {0};
  step.chip_breakdowns = {breakdown()};
  step.link_stats.bytes.assign(pod.links().size(), 0);
  step.link_stats.busy.assign(pod.links().size(), sim::Time::zero());
  const StepEnergy e = step_energy(pod, power(), step);
  EXPECT_EQ(e.powered_chips, 2u);
  EXPECT_EQ(e.parts.total(), 2 * e.chips[0].parts.total());
}

TEST(EnergyFormulas, DeadChipsDrawNothing) {
  config::PodSpec spec = testing::v5e_torus({{"x", 2, false}});
  spec.dead_chips.push_back({0, {1}});
  const topo::Pod pod(spec);
  StepResult step;
  step.step_time = sim::Time::us(10);
  step.chips = {0, 1};
  step.chip_breakdowns = {breakdown(), ChipBreakdown{}};
  step.link_stats.bytes.assign(pod.links().size(), 0);
  step.link_stats.busy.assign(pod.links().size(), sim::Time::zero());
  const StepEnergy e = step_energy(pod, power(), step);
  EXPECT_EQ(e.powered_chips, 1u);
  EXPECT_EQ(e.parts.total(), e.chips[0].parts.total());
}

TEST(EnergyFormulas, NoPowerModelNoEnergy) {
  const topo::Pod pod(testing::v5e_torus({{"x", 2, false}}));
  StepResult step;
  step.step_time = sim::Time::us(10);
  step.chips = {0, 1};
  step.chip_breakdowns = {breakdown(), breakdown()};
  const StepEnergy e = step_energy(pod, config::PowerSpec{}, step);
  EXPECT_FALSE(e.modelled);
  EXPECT_EQ(e.parts.total(), 0);
}

}  // namespace
}  // namespace podsim::engine
