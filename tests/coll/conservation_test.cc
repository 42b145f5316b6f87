// Every collective, on every network model: every byte sent is received,
// every transfer is delivered, every chip finishes, and the links carried
// exactly the bytes the routes imply.
#include <gtest/gtest.h>

#include <numeric>
#include <tuple>

#include "coll_fixture.h"
#include "sim/simulation.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

struct Case {
  const char* label;
  std::vector<Dim> dims;
  uint32_t slices;
  CollectiveKind kind;
  std::vector<std::string> axes;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"ag_ring", {{6, true}}, 1, CollectiveKind::kAllGather, {"x"}},
      {"rs_line", {{5, false}}, 1, CollectiveKind::kReduceScatter, {"x"}},
      {"ar_2d_mixed", {{4, true}, {3, false}}, 1, CollectiveKind::kAllReduce, {"x", "y"}},
      {"ar_one_of_two", {{4, true}, {4, true}}, 1, CollectiveKind::kAllReduce, {"y"}},
      {"a2a_2d", {{4, true}, {4, false}}, 1, CollectiveKind::kAllToAll, {"x", "y"}},
      {"bcast_line", {{7, false}}, 1, CollectiveKind::kBroadcast, {"x"}},
      {"bcast_ring", {{6, true}}, 1, CollectiveKind::kBroadcast, {"x"}},
      {"permute", {{5, true}}, 1, CollectiveKind::kPermute, {"x"}},
      {"permute_line", {{5, false}}, 1, CollectiveKind::kPermute, {"x"}},
      {"ar_dcn", {{4, true}}, 3, CollectiveKind::kAllReduce, {"x", "dcn"}},
      {"ag_dcn", {{3, true}}, 2, CollectiveKind::kAllGather, {"dcn", "x"}},
      {"rs_dcn", {{4, false}}, 2, CollectiveKind::kReduceScatter, {"x", "dcn"}},
  };
  return kCases;
}

class Conservation : public ::testing::TestWithParam<std::tuple<size_t, net::Model>> {};

TEST_P(Conservation, EveryByteArrivesAndEveryChipFinishes) {
  const Case& k = cases()[std::get<0>(GetParam())];
  const topo::Pod pod(pod_spec(k.dims, k.slices));
  const auto mesh = one_axis_per_dim(pod);
  auto c = collective(k.kind, 3 * 4 * 5 * 6 * 7 * 64 * 1024, k.axes);
  if (k.kind == CollectiveKind::kPermute) {
    c.shift = 2;
  }
  if (k.kind == CollectiveKind::kBroadcast) {
    c.root = 2;
  }
  const Outcome o = run(pod, mesh, c, std::get<1>(GetParam()));
  EXPECT_TRUE(o.done) << k.label;
  EXPECT_GT(o.transfers_started, 0U) << k.label;
  EXPECT_EQ(o.transfers_started, o.transfers_delivered) << k.label;
  EXPECT_EQ(o.bytes_sent, o.bytes_received) << k.label;
  EXPECT_GT(o.seconds, 0) << k.label;
  // Every byte crossed at least one link, and no link carried bytes that
  // were never sent.
  const uint64_t link_total =
      std::accumulate(o.link_bytes.begin(), o.link_bytes.end(), uint64_t{0});
  EXPECT_GE(link_total, o.bytes_sent) << k.label;
  // The run's count (per transfer and hop, or per member and step for the
  // lanes with one peer) is the network's, link by link.
  EXPECT_EQ(o.link_bytes, o.network_link_bytes) << k.label;
}

std::string case_name(const ::testing::TestParamInfo<Conservation::ParamType>& info) {
  return std::string(cases()[std::get<0>(info.param)].label) + "_" +
         std::string(net::to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllKinds, Conservation,
                         ::testing::Combine(::testing::Range<size_t>(0, 12),
                                            ::testing::Values(net::Model::kAnalytical,
                                                              net::Model::kFlow,
                                                              net::Model::kPacket)),
                         case_name);

// The data a ring all-gather moves is fixed by the algorithm: each of N chips
// receives N-1 contributions of V/N. Counted from the links, not the executor.
TEST(ConservationExact, RingAllGatherLinkBytes) {
  const topo::Pod pod(pod_spec({{8, true}}));
  const uint64_t v = 8 * 1024 * 1024;
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllGather, v, {"x"}));
  const uint64_t link_total =
      std::accumulate(o.link_bytes.begin(), o.link_bytes.end(), uint64_t{0});
  EXPECT_EQ(link_total, 8 * 7 * (v / 8));  // every hop of a ring step is one link
  EXPECT_EQ(o.bytes_received, 8 * 7 * (v / 8));
}

// Nothing starts before the chip reaches the collective: a chip that joins
// late holds back everyone that needs its data.
TEST(ConservationExact, LateJoinerDelaysTheRing) {
  const topo::Pod pod(pod_spec({{4, true}}));
  const auto mesh = one_axis_per_dim(pod);
  auto network = net::make_network(pod, net::Options{});
  sim::Simulation sim;
  CollectiveRun run(pod, *network,
                    lower(pod, mesh, collective(CollectiveKind::kAllGather, 4096, {"x"})));
  for (topo::ChipId c = 0; c < 3; ++c) {
    run.join(sim, c);
  }
  sim.run_until(sim::Time::ms(1));
  EXPECT_FALSE(run.done());
  sim.schedule_at(sim::Time::ms(2), [&run](sim::Simulation& s) { run.join(s, 3); });
  sim.run();
  ASSERT_TRUE(run.done());
  EXPECT_GT(run.end_time(), sim::Time::ms(2));
  for (topo::ChipId c = 0; c < 4; ++c) {
    EXPECT_GT(run.chip_done_time(c), sim::Time::ms(2)) << "chip " << c;
  }
}

}  // namespace
}  // namespace podsim::coll::testing
