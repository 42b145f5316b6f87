// The factory, options, names, effective bandwidth and the closed-form helper.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "net/analytical_network.h"
#include "net/link_table.h"
#include "net/network.h"
#include "net_fixture.h"
#include "topo/routing.h"

namespace podsim::net::testing {
namespace {

TEST(NetworkNames, ModelsRoundTrip) {
  for (const Model m : {Model::kAnalytical, Model::kFlow, Model::kPacket}) {
    EXPECT_EQ(parse_model(to_string(m)), m);
  }
  EXPECT_EQ(to_string(Model::kFlow), "flow");
  EXPECT_EQ(parse_model("packet"), Model::kPacket);
  EXPECT_EQ(parse_model("Flow"), std::nullopt);
  EXPECT_EQ(parse_model(""), std::nullopt);
}

TEST(NetworkNames, SwitchingRoundTrips) {
  EXPECT_EQ(parse_switching("cut-through"), Switching::kCutThrough);
  EXPECT_EQ(parse_switching("store-and-forward"), Switching::kStoreAndForward);
  EXPECT_EQ(parse_switching("wormhole"), std::nullopt);
  EXPECT_EQ(to_string(Switching::kStoreAndForward), "store-and-forward");
}

TEST(NetworkFactory, MakesTheModelAsked) {
  const topo::Pod pod = ring(4);
  for (const Model m : {Model::kAnalytical, Model::kFlow, Model::kPacket}) {
    Options o;
    o.model = m;
    const auto network = make_network(pod, o);
    EXPECT_EQ(network->model(), m);
    EXPECT_EQ(network->in_flight(), 0u);
    const LinkStats stats = network->link_stats(sim::Simulation{});
    EXPECT_EQ(stats.bytes.size(), pod.links().size());
    EXPECT_EQ(stats.busy.size(), pod.links().size());
  }
  EXPECT_EQ(Options{}.model, Model::kFlow);  // the default
}

TEST(NetworkFactory, RejectsBadOptions) {
  const topo::Pod pod = ring(4);
  for (const Model m : {Model::kAnalytical, Model::kFlow, Model::kPacket}) {
    Options o;
    o.model = m;
    o.packet_bytes = 0;
    EXPECT_THROW(make_network(pod, o), std::invalid_argument);
    for (const double bad : {0.0, -0.5, 1.5, std::nan("")}) {
      o = Options{};
      o.model = m;
      o.ici_efficiency = bad;
      EXPECT_THROW(make_network(pod, o), std::invalid_argument) << bad;
      o = Options{};
      o.model = m;
      o.dcn_efficiency = bad;
      EXPECT_THROW(make_network(pod, o), std::invalid_argument) << bad;
    }
  }
}

TEST(EffectiveBandwidth, EfficiencyPerLinkKind) {
  const topo::Pod pod(with_slices(pod_spec({{4, true}}), 2));
  Options o;
  o.ici_efficiency = 0.9;
  o.dcn_efficiency = 0.3;
  const topo::Link& ici = pod.link(*pod.link_from(0, 0, +1));
  EXPECT_EQ(effective_bandwidth(ici, o).bytes_per_s(), 40'500'000'000u);  // 45 x 0.9
  EXPECT_EQ(effective_bandwidth(pod.link(pod.dcn_up(0)), o).bytes_per_s(), 7'500'000'000u);
  EXPECT_EQ(effective_bandwidth(pod.link(pod.dcn_down(0)), o).bytes_per_s(), 7'500'000'000u);
  EXPECT_EQ(effective_bandwidth(ici, Options{}).bytes_per_s(), kLinkBps);
}

TEST(AnalyticalTime, MatchesTheClosedForm) {
  const topo::Pod torus = torus3(4);
  const auto route = topo::route(torus, 0, 42);  // 6 hops
  ASSERT_EQ(route.size(), 6u);
  EXPECT_EQ(analytical_time(torus, route, 1'000'000, Options{}),
            sim::transfer_time(1'000'000, sim::Bandwidth::bytes_per_s(kLinkBps)) + 6 * kHop);
  Options half;
  half.ici_efficiency = 0.5;
  EXPECT_EQ(analytical_time(torus, route, 1'000'000, half),
            sim::transfer_time(1'000'000, sim::Bandwidth::bytes_per_s(kLinkBps / 2)) + 6 * kHop);
  EXPECT_EQ(analytical_time(torus, {}, 1'000'000, Options{}), sim::Time::zero());
}

}  // namespace
}  // namespace podsim::net::testing
