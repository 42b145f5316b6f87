// Conformance, part 1: a lone transfer against the closed form, edge cases,
// explicit routes, link statistics. Runs against every model (see conformance.h).
#include "conformance.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <vector>

#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

constexpr uint64_t kBig = 64 * kMiB;  // 16384 packets of kPacketBytes

NetCase make_case(const std::string& label, Model model,
                  Switching switching = Switching::kCutThrough) {
  Options o;
  o.model = model;
  o.switching = switching;
  o.packet_bytes = kConformancePacketBytes;
  return NetCase{label, o};
}

INSTANTIATE_TEST_SUITE_P(
    AllModels, NetworkConformance,
    ::testing::Values(make_case("analytical", Model::kAnalytical), make_case("flow", Model::kFlow),
                      make_case("packet_cut_through", Model::kPacket, Switching::kCutThrough),
                      make_case("packet_store_and_forward", Model::kPacket,
                                Switching::kStoreAndForward)),
    [](const ::testing::TestParamInfo<NetCase>& param) { return param.param.label; });

TEST_P(NetworkConformance, LoneTransferTakesBytesOverBandwidthPlusHopLatencies) {
  const topo::Pod line9 = line(9);
  for (const auto& [dst, hops] : {std::pair{1u, 1}, {3u, 3}, {8u, 8}}) {
    const auto r = run_all(line9, options(), {transfer(0, dst, kBig)});
    expect_near(r.times[0], closed_form(kBig, kLinkBps, hops), single_tolerance(),
                "line of 9, " + std::to_string(hops) + " hops");
  }
  // On a 4x4x4 torus: (0,0,0) to (1,1,1) is 3 hops, to (2,2,2) 6 hops.
  const topo::Pod torus = torus3(4);
  for (const auto& [dst, hops] : {std::pair{21u, 3}, {42u, 6}}) {
    const auto r = run_all(torus, options(), {transfer(0, dst, kBig)});
    expect_near(r.times[0], closed_form(kBig, kLinkBps, hops), single_tolerance(),
                "4x4x4 torus, " + std::to_string(hops) + " hops");
  }
}

TEST_P(NetworkConformance, LoneTransferOfUnevenSize) {
  const topo::Pod line9 = line(9);
  const uint64_t uneven = kBig + 1234;  // the last packet is short
  auto r = run_all(line9, options(), {transfer(0, 3, uneven)});
  expect_near(r.times[0], closed_form(uneven, kLinkBps, 3), single_tolerance());
  // Less than one packet, one hop: every model agrees on the closed form.
  r = run_all(line9, options(), {transfer(5, 6, 1000)});
  expect_near(r.times[0], closed_form(1000, kLinkBps, 1), single_tolerance());
}

TEST_P(NetworkConformance, IciEfficiencyScalesLinkBandwidth) {
  Options o = options();
  o.ici_efficiency = 0.8;  // 45 GB/s -> 36 GB/s
  const auto r = run_all(line(9), o, {transfer(0, 3, kBig)});
  expect_near(r.times[0], closed_form(kBig, 36 * kGB, 3), single_tolerance());
}

TEST_P(NetworkConformance, DcnTransferUsesDcnBandwidthAndLatency) {
  const topo::Pod pod(with_slices(pod_spec({{4, true}}), 2));
  // Chip 1 of slice 0 to chip 6 (coordinate 2 of slice 1): up, then down.
  auto r = run_all(pod, options(), {transfer(1, 6, kBig)});
  expect_near(r.times[0], closed_form(kBig, kDcnBps, 1, kDcnLatency), single_tolerance());

  Options o = options();
  o.dcn_efficiency = 0.5;  // 25 GB/s -> 12.5 GB/s; ICI untouched
  r = run_all(pod, o, {transfer(1, 6, kBig), transfer(0, 2, kBig)});
  expect_near(r.times[0], closed_form(kBig, kDcnBps / 2, 1, kDcnLatency), single_tolerance(),
              "DCN");
  expect_near(r.times[1], closed_form(kBig, kLinkBps, 2), single_tolerance(), "ICI");
}

TEST_P(NetworkConformance, ZeroBytesPayTheRouteLatencyOnly) {
  const auto r = run_all(line(9), options(), {transfer(0, 3, 0)});
  EXPECT_EQ(r.times[0], 3 * kHop);
  for (const uint64_t b : r.stats.bytes)
    EXPECT_EQ(b, 0u);
}

TEST_P(NetworkConformance, SameChipIsDeliveredAtOnceThroughAnEvent) {
  // run_all fails the test if delivery happens inside start().
  const auto r = run_all(line(9), options(), {transfer(4, 4, kBig), transfer(2, 2, 0)});
  EXPECT_EQ(r.times[0], sim::Time::zero());
  EXPECT_EQ(r.times[1], sim::Time::zero());
}

TEST_P(NetworkConformance, ExplicitRouteIsFollowed) {
  // On a ring of 8, 0 -> 1 the long way round: 7 hops in the - direction.
  const topo::Pod ring8 = ring(8);
  std::vector<topo::LinkId> route;
  topo::ChipId at = 0;
  for (int i = 0; i < 7; ++i) {
    route.push_back(*ring8.link_from(at, 0, -1));
    at = ring8.link(route.back()).dst;
  }
  ASSERT_EQ(at, 1u);
  const auto r = run_all(ring8, options(), {Transfer{0, 1, kBig, route}});
  expect_near(r.times[0], closed_form(kBig, kLinkBps, 7), single_tolerance());
  for (const topo::LinkId id : route)
    EXPECT_EQ(r.stats.bytes[id], kBig);
}

TEST_P(NetworkConformance, BadExplicitRouteIsRejected) {
  const topo::Pod ring8 = ring(8);
  sim::Simulation sim;
  auto network = make_network(ring8, options());
  RecordingSink sink;
  const std::vector<topo::LinkId> wrong_start = {*ring8.link_from(3, 0, +1)};
  EXPECT_THROW(network->start(sim, Transfer{0, 1, 10, wrong_start}, sink, 0),
               std::invalid_argument);
  const std::vector<topo::LinkId> wrong_end = {*ring8.link_from(0, 0, +1)};
  EXPECT_THROW(network->start(sim, Transfer{0, 2, 10, wrong_end}, sink, 0), std::invalid_argument);
  const std::vector<topo::LinkId> no_such_link = {100000};
  EXPECT_THROW(network->start(sim, Transfer{0, 1, 10, no_such_link}, sink, 0),
               std::invalid_argument);
  EXPECT_EQ(network->in_flight(), 0u);
}

TEST_P(NetworkConformance, LinkStatsConserveBytes) {
  const topo::Pod torus = torus3(4);
  const std::vector<Transfer> transfers = {transfer(0, 42, 3 * kMiB), transfer(5, 6, kMiB),
                                           transfer(63, 0, 2 * kMiB), transfer(17, 17, kMiB),
                                           transfer(9, 30, 0)};
  const auto r = run_all(torus, options(), transfers);
  // Expected bytes per link from the routes, worked out independently.
  std::vector<uint64_t> expected(torus.links().size(), 0);
  uint64_t byte_hops = 0;
  for (const Transfer& t : transfers) {
    const auto route = topo::route(torus, t.src, t.dst);
    for (const topo::LinkId id : route)
      expected[id] += t.bytes;
    byte_hops += t.bytes * route.size();
  }
  EXPECT_EQ(r.stats.bytes, expected);
  EXPECT_EQ(std::accumulate(r.stats.bytes.begin(), r.stats.bytes.end(), uint64_t{0}), byte_hops);
  for (size_t id = 0; id < expected.size(); ++id) {
    EXPECT_EQ(r.stats.busy[id] > sim::Time::zero(), expected[id] > 0) << "link " << id;
  }
}

TEST_P(NetworkConformance, BusyTimeOfALoneTransferIsItsStreamTime) {
  const auto r = run_all(line(9), options(), {transfer(0, 3, kBig)});
  const topo::Pod line9 = line(9);
  for (const topo::LinkId id : topo::route(line9, 0, 3)) {
    expect_near(r.stats.busy[id], closed_form(kBig, kLinkBps, 0), single_tolerance());
  }
}

TEST_P(NetworkConformance, StatsMidRunCountOnlyWhatHasHappened) {
  const topo::Pod line9 = line(9);
  sim::Simulation sim;
  auto network = make_network(line9, options());
  RecordingSink sink;
  network->start(sim, transfer(0, 1, kBig), sink, 0);
  const sim::Time stream = closed_form(kBig, kLinkBps, 0);
  sim.run_until(sim::Time::ps(stream.count_ps() / 2));
  EXPECT_EQ(network->in_flight(), 1u);
  const LinkStats half = network->link_stats(sim);
  const topo::LinkId link = *line9.link_from(0, 0, +1);
  EXPECT_LE(half.bytes[link], kBig);
  EXPECT_LE(half.busy[link], sim.now());
  if (books_links()) {
    // Booked [0, T) at the start: busy so far is all of the elapsed time, and
    // the bytes are counted when booked.
    EXPECT_EQ(half.busy[link], sim.now());
    EXPECT_EQ(half.bytes[link], kBig);
  } else {  // about half the bytes have crossed (a packet's worth of slack)
    EXPECT_NEAR(static_cast<double>(half.bytes[link]), kBig / 2.0, 2.0 * kConformancePacketBytes);
  }
  sim.run();
  EXPECT_EQ(network->in_flight(), 0u);
  EXPECT_EQ(network->link_stats(sim).bytes[link], kBig);
}

// On delivery, forwards the same bytes one more hop along a ring, `steps` times:
// a ring pipeline in which every transfer is started from inside a delivery.
class ForwardingSink final : public TransferSink {
 public:
  ForwardingSink(Network& network, uint32_t ring_size, uint64_t bytes, int steps)
      : network_(network), ring_size_(ring_size), bytes_(bytes), steps_(steps) {}
  void delivered(sim::Simulation& sim, uint64_t tag) override {
    times.push_back(sim.now());
    const auto chip = static_cast<topo::ChipId>(tag);
    if (static_cast<int>(times.size()) < steps_) {
      const topo::ChipId next = (chip + 1) % ring_size_;
      network_.start(sim, transfer(next, (next + 1) % ring_size_, bytes_), *this, next);
    }
  }
  std::vector<sim::Time> times;

 private:
  Network& network_;
  uint32_t ring_size_;
  uint64_t bytes_;
  int steps_;
};

TEST_P(NetworkConformance, TransfersStartedOnDeliveryChainCleanly) {
  const topo::Pod ring8 = ring(8);
  sim::Simulation sim;
  auto network = make_network(ring8, options());
  const uint64_t bytes = 4 * kMiB;
  ForwardingSink sink(*network, 8, bytes, 7);
  network->start(sim, transfer(0, 1, bytes), sink, 0);
  sim.run();
  ASSERT_EQ(sink.times.size(), 7u);
  const sim::Time step = closed_form(bytes, kLinkBps, 1);
  for (int k = 0; k < 7; ++k) {
    expect_near(sink.times[k], (k + 1) * step, single_tolerance(), "step " + std::to_string(k));
  }
  EXPECT_EQ(network->in_flight(), 0u);
}

}  // namespace
}  // namespace podsim::net::testing
