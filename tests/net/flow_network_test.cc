// The flow model's incremental re-solving: what it touches and reschedules.
//
// A flow that starts on free links is solved on the spot. Other starts, and
// drains, are batched: one resolve event at the end of each instant re-solves
// every component they touched, once. The tests below call
// sim.run_until(now) after starting flows to let that resolve run, so that
// each start's solve can be counted on its own.
#include "net/flow_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "net_fixture.h"
#include "sim/simulation.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

Options flow_options() {
  Options o;
  o.model = Model::kFlow;
  return o;
}

sim::Time stream(uint64_t bytes) {
  return sim::transfer_time(bytes, sim::Bandwidth::bytes_per_s(kLinkBps));
}

TEST(FlowNetwork, FinishingOneOfTwoDisjointFlowsLeavesTheOtherAlone) {
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, kMiB), sink, 0);       // short
  network.start(sim, transfer(4, 6, 64 * kMiB), sink, 1);  // long, other links
  const auto before = network.counters();
  EXPECT_EQ(before.resolves, 0u);  // both started on free links: solved at once
  EXPECT_EQ(before.solves, 2u);
  EXPECT_EQ(before.solved_flows, 2u);  // two components of one flow each

  // Run past the short flow's delivery: nothing about the long one may change.
  sim.run_until(stream(kMiB) + kHop);
  ASSERT_EQ(sink.deliveries().size(), 1u);
  EXPECT_EQ(network.counters().reschedules, 0u);
  EXPECT_EQ(network.counters().solves, 2u);  // the short one drained alone: nothing to re-solve

  sim.run();
  EXPECT_EQ(sink.time_of(1), stream(64 * kMiB) + 2 * kHop);
  EXPECT_EQ(network.counters().reschedules, 0u);
}

TEST(FlowNetwork, ExplicitRoutesAreCheckedAndABadOneLeavesNoTrace) {
  // The flow model checks an explicit route against its own link records;
  // the errors are LinkTable::resolve's, and a rejected start changes nothing.
  const topo::Pod line4 = line(4);
  FlowNetwork network(line4, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  const std::vector<topo::LinkId> good = topo::route(line4, 0, 2);
  ASSERT_EQ(good.size(), 2u);
  const std::vector<topo::LinkId> missing = {good[0], 1'000'000};
  const std::vector<topo::LinkId> broken = {good[1], good[0]};
  const std::vector<topo::LinkId> short_of_it = {good[0]};
  EXPECT_THROW(network.start(sim, Transfer{0, 2, kMiB, missing}, sink, 0), std::invalid_argument);
  EXPECT_THROW(network.start(sim, Transfer{0, 2, kMiB, broken}, sink, 0), std::invalid_argument);
  EXPECT_THROW(network.start(sim, Transfer{0, 2, kMiB, short_of_it}, sink, 0),
               std::invalid_argument);
  EXPECT_EQ(network.in_flight(), 0u);
  network.start(sim, Transfer{0, 2, kMiB, good}, sink, 1);
  sim.run();
  EXPECT_EQ(sink.time_of(1), stream(kMiB) + 2 * kHop);
}

TEST(FlowNetwork, FlowsAloneOnTheirLinksCostOneEventEach) {
  // No drain events and no resolve: one delivery per flow.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 3, kMiB), sink, 0);
  network.start(sim, transfer(5, 4, 2 * kMiB), sink, 1);
  sim.run();
  EXPECT_EQ(sim.events_executed(), 2u);
  EXPECT_EQ(network.counters().resolves, 0u);
  EXPECT_EQ(sink.time_of(0), stream(kMiB) + 3 * kHop);
  EXPECT_EQ(sink.time_of(1), stream(2 * kMiB) + kHop);
}

// Records, in order, the deliveries and the hints given before them.
class HintedSink final : public TransferSink {
 public:
  void delivered(sim::Simulation&, uint64_t tag) override { log.push_back({false, tag}); }
  void prefetch(uint64_t tag) const override { log.push_back({true, tag}); }
  struct Entry {
    bool hint = false;
    uint64_t tag = 0;
  };
  mutable std::vector<Entry> log;
};

TEST(FlowNetwork, ADeliveryHintsItsSinkFirstAndADrainDoesNot) {
  // Four flows share link 0 -> 1 and drain one by one (their drains are
  // events that deliver nothing); sixteen more, alone on their links and of
  // one size, are delivered at one instant: many events at one time, which
  // the queue keeps in a sorted run, where the kernel can see the event
  // after next. A hint names only a transfer still to be delivered (the
  // kernel gives it while the event before that delivery runs), and those
  // deliveries are hinted.
  constexpr uint64_t kFlows = 20;
  const topo::Pod line21 = line(21);
  FlowNetwork network(line21, flow_options());
  sim::Simulation sim;
  HintedSink sink;
  for (uint64_t i = 0; i < 4; ++i) {
    network.start(sim, transfer(0, 1, (i + 1) * kMiB), sink, i);
  }
  for (uint64_t i = 4; i < kFlows; ++i) {
    const auto src = static_cast<topo::ChipId>(i - 2);
    network.start(sim, transfer(src, src + 1, kMiB), sink, i);
  }
  sim.run();
  std::vector<bool> delivered(kFlows, false);
  std::vector<bool> hinted(kFlows, false);
  int hinted_deliveries = 0;
  for (const auto& e : sink.log) {
    ASSERT_LT(e.tag, kFlows);
    EXPECT_FALSE(delivered[e.tag]) << "transfer " << e.tag << " after its delivery";
    if (e.hint) {
      hinted[e.tag] = true;
    } else {
      delivered[e.tag] = true;
      hinted_deliveries += hinted[e.tag] ? 1 : 0;
    }
  }
  EXPECT_EQ(std::count(delivered.begin(), delivered.end(), true), static_cast<long>(kFlows));
  EXPECT_GE(hinted_deliveries, 14);
}

TEST(FlowNetwork, SharingFlowsAreReplannedOnlyWhenTheirRateChanges) {
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, 64 * kMiB), sink, 0);  // alone: full rate
  sim.run_until(sim::Time::zero());
  EXPECT_EQ(network.counters().reschedules, 0u);
  network.start(sim, transfer(0, 1, 4 * kMiB), sink, 1);  // halves the first
  sim.run_until(sim::Time::zero());
  EXPECT_EQ(network.counters().reschedules, 1u);
  EXPECT_EQ(network.counters().solved_flows, 1u + 2u);
  sim.run();
  // The small one's drain doubled the large one's rate: one more replan.
  EXPECT_EQ(network.counters().reschedules, 2u);
  // 4 MiB at half rate, then the remaining 60 MiB alone.
  EXPECT_EQ(sink.time_of(1), stream(8 * kMiB) + kHop);
  EXPECT_EQ(sink.time_of(0), stream(68 * kMiB) + kHop);
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
  EXPECT_EQ(network.counters().resolves, 0u);
  EXPECT_EQ(network.counters().solves, 16u);  // one per start, none per drain
  EXPECT_EQ(network.counters().solved_flows, 16u);
  EXPECT_EQ(network.counters().reschedules, 0u);
}

TEST(FlowNetwork, SimultaneousStartsCostOneSolve) {
  // Eight flows start on link 0 -> 1 at the same instant. The first finds the
  // link free and is solved alone on the spot; the other seven join it and
  // the instant's resolve solves the eight once (one start at a time would
  // solve 2 + 3 + ... + 8 flows).
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  for (uint64_t i = 0; i < 8; ++i)
    network.start(sim, transfer(0, 1, kMiB), sink, i);
  EXPECT_EQ(network.counters().solves, 1u);
  sim.run_until(sim::Time::zero());
  EXPECT_EQ(network.counters().resolves, 1u);
  EXPECT_EQ(network.counters().solves, 2u);
  EXPECT_EQ(network.counters().solved_flows, 1u + 8u);
  EXPECT_EQ(network.counters().reschedules, 1u);  // the first, no longer alone
  sim.run();
  // They drain together, at an eighth of the link each: the drains leave an
  // empty component, so nothing more is solved.
  for (uint64_t i = 0; i < 8; ++i)
    EXPECT_EQ(sink.time_of(i), stream(8 * kMiB) + kHop);
  EXPECT_EQ(network.counters().solves, 2u);
  EXPECT_EQ(network.counters().reschedules, 1u);
}

TEST(FlowNetwork, SimultaneousDrainsCostOneSolve) {
  // A large flow and four small ones share link 0 -> 1. The small ones drain
  // at the same instant; the large one is re-solved once, not four times.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, 10 * kMiB), sink, 4);  // alone, for now
  for (uint64_t i = 0; i < 4; ++i)
    network.start(sim, transfer(0, 1, kMiB), sink, i);
  sim.run_until(sim::Time::zero());
  const auto shared = network.counters();
  EXPECT_EQ(shared.solved_flows, 1u + 5u);
  EXPECT_EQ(shared.reschedules, 1u);  // the large one joins the component
  sim.run();
  EXPECT_EQ(network.counters().solves, shared.solves + 1);
  EXPECT_EQ(network.counters().solved_flows, shared.solved_flows + 1);
  EXPECT_EQ(network.counters().reschedules, 2u);  // the large one, alone at full rate
  // Its drain was never scheduled while the small ones drained first: the
  // only cancelled event is its lone delivery, when they joined.
  EXPECT_EQ(network.counters().cancels, 1u);
  // 5 x 1 MiB cross while all five share; the large one's last 9 MiB alone.
  EXPECT_EQ(sink.time_of(0), stream(5 * kMiB) + kHop);
  EXPECT_EQ(sink.time_of(4), stream(14 * kMiB) + kHop);
}

TEST(FlowNetwork, OnlyAComponentsFirstDrainHasAnEvent) {
  // Eight flows of 1, 2, ..., 8 MiB share link 0 -> 1 from the same instant.
  // Each drain re-plans every flow left (its share grows), so a drain event
  // per flow would be cancelled and scheduled again at every drain before
  // it. Only the component's next drain is scheduled: the queue holds one
  // drain at a time, and nothing is cancelled but the first flow's lone plan.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  constexpr uint64_t kFlows = 8;
  for (uint64_t i = 0; i < kFlows; ++i)
    network.start(sim, transfer(0, 1, (i + 1) * kMiB), sink, i);
  sim.run_until(sim::Time::zero());
  EXPECT_EQ(network.counters().cancels, 1u);  // the first, no longer alone
  EXPECT_EQ(sim.pending(), 1u);               // the 1 MiB flow's drain
  sim.run();
  EXPECT_EQ(network.counters().reschedules, 1u + 7 + 6 + 5 + 4 + 3 + 2 + 1);
  EXPECT_EQ(network.counters().cancels, 1u);
  // Progressive sharing: while flow j (j + 1 MiB) drains, 8 - j flows share
  // the link, each moving 1 MiB: flow i ends after sum_{j <= i} (8 - j) MiB
  // at the link's rate, plus the hop (each drain rounds up to a picosecond).
  uint64_t mib = 0;
  for (uint64_t i = 0; i < kFlows; ++i) {
    mib += kFlows - i;
    const sim::Time expected = stream(mib * kMiB) + kHop;
    EXPECT_GE(sink.time_of(i), expected) << "flow " << i;
    EXPECT_LE(sink.time_of(i), expected + sim::Time::ps(static_cast<int64_t>(i + 1)))
        << "flow " << i;
  }
}

TEST(FlowNetwork, JoiningALoneFlowAfterItsDrainTakesTheWholeLink) {
  // The first flow drains at T and is delivered at T + 1 us. A second flow on
  // the same link starting at T + 0.5 us must not share with it.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 1, kMiB), sink, 0);
  const sim::Time later = stream(kMiB) + sim::Time::ns(500);
  sim.run_until(later);
  EXPECT_TRUE(sink.deliveries().empty());
  const topo::LinkId link = *line9.link_from(0, 0, +1);
  const LinkStats mid = network.link_stats(sim);
  EXPECT_EQ(mid.bytes[link], kMiB);
  EXPECT_EQ(mid.busy[link], stream(kMiB));  // idle since the drain
  network.start(sim, transfer(0, 1, 2 * kMiB), sink, 1);
  sim.run();
  EXPECT_EQ(sink.time_of(0), stream(kMiB) + kHop);
  EXPECT_EQ(sink.time_of(1), later + stream(2 * kMiB) + kHop);
  const LinkStats end = network.link_stats(sim);
  EXPECT_EQ(end.bytes[link], 3 * kMiB);
  EXPECT_EQ(end.busy[link], stream(kMiB) + stream(2 * kMiB));
  EXPECT_EQ(network.counters().reschedules, 0u);
}

TEST(FlowNetwork, ADrainedLoneFlowLeavesEachLinkWhenTakenOverAndTheRestAtDelivery) {
  // A three-hop flow drains alone at T; its delivery is at T + 3 hops. A
  // second flow takes its middle link over at T + 0.5 us, before that
  // delivery: it gets the whole link, and each link's bytes and busy time
  // count the first flow once, to its drain, whichever way it left.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 3, kMiB), sink, 0);
  const std::vector<topo::LinkId> links = topo::route(line9, 0, 3);
  ASSERT_EQ(links.size(), 3u);

  // Half way through its bytes, every link has been busy all along.
  sim.run_until(stream(kMiB / 2));
  const LinkStats half = network.link_stats(sim);
  for (const topo::LinkId id : links) {
    EXPECT_EQ(half.busy[id], sim.now());
    EXPECT_NEAR(static_cast<double>(half.bytes[id]), kMiB / 2.0, 1.0);
  }

  const sim::Time later = stream(kMiB) + sim::Time::ns(500);
  sim.run_until(later);
  ASSERT_TRUE(sink.deliveries().empty());
  network.start(sim, transfer(1, 2, 2 * kMiB), sink, 1);
  const LinkStats taken = network.link_stats(sim);
  for (const topo::LinkId id : links) {
    EXPECT_EQ(taken.bytes[id], kMiB);
    EXPECT_EQ(taken.busy[id], stream(kMiB));  // the middle one's new period has just begun
  }
  sim.run();
  EXPECT_EQ(sink.time_of(0), stream(kMiB) + 3 * kHop);
  EXPECT_EQ(sink.time_of(1), later + stream(2 * kMiB) + kHop);
  const LinkStats end = network.link_stats(sim);
  EXPECT_EQ(end.bytes[links[0]], kMiB);
  EXPECT_EQ(end.busy[links[0]], stream(kMiB));
  EXPECT_EQ(end.bytes[links[1]], 3 * kMiB);
  EXPECT_EQ(end.busy[links[1]], stream(kMiB) + stream(2 * kMiB));
  EXPECT_EQ(end.bytes[links[2]], kMiB);
  EXPECT_EQ(end.busy[links[2]], stream(kMiB));
  EXPECT_EQ(network.counters().reschedules, 0u);

  // Its other links are free again: a flow over all three has them whole.
  network.start(sim, transfer(0, 3, kMiB), sink, 2);
  const sim::Time third = sim.now();
  sim.run();
  EXPECT_EQ(sink.time_of(2), third + stream(kMiB) + 3 * kHop);
  EXPECT_EQ(network.link_stats(sim).busy[links[0]], 2 * stream(kMiB));
}

TEST(FlowNetwork, AJoinBeforeTheDrainReopensEveryLinkOfTheLoneFlow) {
  // The first flow is planned alone over two links; a second joins the
  // second link half way. The link it did not join must not keep the first
  // flow's planned drain as the end of its busy period: the first flow
  // slows down, and both links stay busy until it has drained.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 2, 2 * kMiB), sink, 0);
  const sim::Time half = stream(kMiB);
  sim.run_until(half);
  network.start(sim, transfer(1, 2, kMiB / 2), sink, 1);
  sim.run_until(half);  // the resolve
  const topo::LinkId first = *line9.link_from(0, 0, +1);
  const topo::LinkId second = *line9.link_from(1, 0, +1);
  const LinkStats mid = network.link_stats(sim);
  EXPECT_EQ(mid.busy[first], half);
  EXPECT_EQ(mid.busy[second], half);
  EXPECT_NEAR(static_cast<double>(mid.bytes[first]), static_cast<double>(kMiB), 1.0);
  EXPECT_NEAR(static_cast<double>(mid.bytes[second]), static_cast<double>(kMiB), 1.0);
  sim.run();
  const sim::Time drained = sink.time_of(0) - 2 * kHop;
  const LinkStats end = network.link_stats(sim);
  EXPECT_EQ(end.bytes[first], 2 * kMiB);
  EXPECT_EQ(end.bytes[second], 2 * kMiB + kMiB / 2);
  EXPECT_EQ(end.busy[first], drained);
  EXPECT_EQ(end.busy[second], drained);
}

TEST(FlowNetwork, AClassRouteThatCrossesALinkTwiceLoadsItTwice) {
  // A symmetric run's route over link classes may name a link twice (two
  // hops of one class): the flow then stands for two copies on that link,
  // alone or not, and a flow that takes the link over after its drain
  // finds it free.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  const topo::LinkId link = *line9.link_from(0, 0, +1);
  const std::vector<topo::LinkId> twice{link, link};
  Transfer t = transfer(0, 2, kMiB);
  t.route = twice;
  t.over_classes = true;
  network.start(sim, t, sink, 0);
  sim.run_until(sim::Time::zero());
  const sim::Time drain = stream(2 * kMiB);  // two copies share the link
  sim.run_until(drain + sim::Time::ns(100));
  ASSERT_TRUE(sink.deliveries().empty());
  network.start(sim, transfer(0, 1, kMiB), sink, 1);
  const sim::Time second = sim.now();
  sim.run();
  EXPECT_EQ(sink.time_of(0), drain + 2 * kHop);
  EXPECT_EQ(sink.time_of(1), second + stream(kMiB) + kHop);
  const LinkStats end = network.link_stats(sim);
  EXPECT_EQ(end.bytes[link], 3 * kMiB);
  EXPECT_EQ(end.busy[link], drain + stream(kMiB));
}

TEST(FlowNetwork, JoiningALoneFlowBeforeItsDrainSharesTheLink) {
  // The first flow is planned alone; a second joins half way through its
  // bytes and shares one of its links until it has drained its own.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  network.start(sim, transfer(0, 2, 2 * kMiB), sink, 0);
  const sim::Time half = stream(kMiB);
  sim.run_until(half);
  network.start(sim, transfer(1, 2, kMiB / 2), sink, 1);  // shares link 1 -> 2 only
  sim.run();
  EXPECT_EQ(network.counters().reschedules, 2u);  // joined, then alone again
  // The second drains 512 KiB at half rate (as long as 1 MiB alone); the
  // first has 512 KiB left then. Doubles may round each step by a picosecond.
  const auto ps = [](sim::Time t) { return static_cast<double>(t.count_ps()); };
  EXPECT_NEAR(ps(sink.time_of(1)), ps(half + stream(kMiB) + kHop), 2);
  EXPECT_NEAR(ps(sink.time_of(0)), ps(half + stream(kMiB) + stream(kMiB / 2) + 2 * kHop), 2);
}

TEST(FlowNetwork, ComponentWalkStopsAtTheComponent) {
  // Eight flows crowd link 0 -> 1; a ninth flow elsewhere must not see them.
  const topo::Pod line9 = line(9);
  FlowNetwork network(line9, flow_options());
  sim::Simulation sim;
  RecordingSink sink;
  for (uint64_t i = 0; i < 8; ++i)
    network.start(sim, transfer(0, 1, kMiB), sink, i);
  sim.run_until(sim::Time::zero());
  const auto crowded = network.counters();
  network.start(sim, transfer(5, 8, kMiB), sink, 8);
  sim.run_until(sim::Time::zero());
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
  sim.run_until(sim::Time::zero());
  const uint64_t before = network.counters().solved_flows;
  network.start(sim, transfer(1, 2, kMiB), sink, 2);
  sim.run_until(sim::Time::zero());
  EXPECT_EQ(network.counters().solved_flows, before + 3);
  sim.run();
}

}  // namespace
}  // namespace podsim::net::testing
