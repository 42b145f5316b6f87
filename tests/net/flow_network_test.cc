// The flow model's incremental re-solving: what it touches and reschedules.
#include "net/flow_network.h"

#include <gtest/gtest.h>

#include "net_fixture.h"
#include "sim/simulation.h"

namespace podsim::net::testing {
namespace {

Options flow_options() {
  Options o;
  o.model = Model::kFlow;
  return o;
}

TEST(FlowNetwork, FinishingOneOfTwoDisjointFlowsLeavesTheOtherAlone) {
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, kMiB), sink, 0);       // short
  network.start(sim, transfer(4, 6, 64 * kMiB), sink, 1);  // long, other links
  const auto before = network.counters();
  EXPECT_EQ(before.solves, 2u);
  EXPECT_EQ(before.solved_flows, 2u);  // each start saw a component of one flow

  // Run past the short flow's delivery: nothing about the long one may change.
  sim.run_until(sim::transfer_time(kMiB, sim::Bandwidth::bytes_per_s(kLinkBps)) + kHop);
  ASSERT_EQ(sink.deliveries().size(), 1u);
  EXPECT_EQ(network.counters().reschedules, 0u);
  EXPECT_EQ(network.counters().solves, 2u);  // the drain found no one to re-solve

  sim.run();
  EXPECT_EQ(sink.time_of(1),
            sim::transfer_time(64 * kMiB, sim::Bandwidth::bytes_per_s(kLinkBps)) + 2 * kHop);
  EXPECT_EQ(network.counters().reschedules, 0u);
}

TEST(FlowNetwork, SharingFlowsAreReplannedOnlyWhenTheirRateChanges) {
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, 64 * kMiB), sink, 0);  // alone: full rate
  EXPECT_EQ(network.counters().reschedules, 0u);
  network.start(sim, transfer(0, 1, 4 * kMiB), sink, 1);  // halves the first
  EXPECT_EQ(network.counters().reschedules, 1u);
  EXPECT_EQ(network.counters().solved_flows, 1u + 2u);
  sim.run();
  // The small one's drain doubled the large one's rate: one more replan.
  EXPECT_EQ(network.counters().reschedules, 2u);
}

TEST(FlowNetwork, RingStepsAreComponentsOfOneFlow) {
  const topo::Pod ring8 = ring(8);
  FlowNetwork network(ring8, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  for (topo::ChipId c = 0; c < 8; ++c) {
    network.start(sim, transfer(c, (c + 1) % 8, kMiB), sink, c);
    network.start(sim, transfer(c, (c + 7) % 8, kMiB), sink, 8 + c);
  }
  sim.run();
  EXPECT_EQ(sink.deliveries().size(), 16u);
  EXPECT_EQ(network.counters().solves, 16u);  // one per start, none per drain
  EXPECT_EQ(network.counters().solved_flows, 16u);
  EXPECT_EQ(network.counters().reschedules, 0u);
}

TEST(FlowNetwork, ComponentWalkStopsAtTheComponent) {
  // Eight flows crowd link 0 -> 1; a ninth flow elsewhere must not see them.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  for (uint64_t i = 0; i < 8; ++i)
    network.start(sim, transfer(0, 1, kMiB), sink, i);
  const auto crowded = network.counters();
  EXPECT_EQ(crowded.solved_flows, 1u + 2u + 3u + 4u + 5u + 6u + 7u + 8u);
  network.start(sim, transfer(5, 8, kMiB), sink, 8);
  EXPECT_EQ(network.counters().solves, crowded.solves + 1);
  EXPECT_EQ(network.counters().solved_flows, crowded.solved_flows + 1);
  sim.run();
  EXPECT_EQ(network.in_flight(), 0u);
}

TEST(FlowNetwork, ChainOfSharedLinksIsOneComponent) {
  // 0->2 shares 0->1 with 0->1 and 1->2 with 1->2: starting the third flow
  // re-solves all three even though it meets only one of them directly.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, kMiB), sink, 0);
  network.start(sim, transfer(0, 2, kMiB), sink, 1);
  const uint64_t before = network.counters().solved_flows;
  network.start(sim, transfer(1, 2, kMiB), sink, 2);
  EXPECT_EQ(network.counters().solved_flows, before + 3);
  sim.run();
}

}  // namespace
}  // namespace podsim::net::testing
