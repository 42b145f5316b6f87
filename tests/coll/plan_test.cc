// The shape of lowered plans: what a TPU-like schedule should contain.
#include <gtest/gtest.h>

#include "coll_fixture.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

TEST(Plan, RingAllGatherGoesHalfWayEachWay) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const Plan p =
      lower(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllGather, 1600, {"x"}));
  ASSERT_EQ(p.shares.size(), 1U);
  ASSERT_EQ(p.shares[0].phases.size(), 1U);
  const Phase& ph = p.shares[0].phases[0];
  EXPECT_EQ(ph.pattern, Pattern::kRing);
  ASSERT_EQ(ph.lanes.size(), 2U);
  EXPECT_EQ(ph.lanes[0].steps + ph.lanes[1].steps, 15U);
  EXPECT_EQ(ph.lanes[0].steps, 8U);
  EXPECT_EQ(ph.lanes[0].chunk_bytes, 100U);  // V / N
  EXPECT_EQ(p.group_size, 16U);
}

TEST(Plan, LineUsesPipelinePatterns) {
  const topo::Pod pod(pod_spec({{8, false}}));
  const auto mesh = one_axis_per_dim(pod);
  EXPECT_EQ(lower(pod, mesh, collective(CollectiveKind::kAllGather, 800, {"x"}))
                .shares[0]
                .phases[0]
                .pattern,
            Pattern::kLineGather);
  EXPECT_EQ(lower(pod, mesh, collective(CollectiveKind::kReduceScatter, 800, {"x"}))
                .shares[0]
                .phases[0]
                .pattern,
            Pattern::kLineScatter);
}

TEST(Plan, MultiAxisSplitsIntoRotatedShares) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}, {4, true}}));
  const Plan p = lower(pod, one_axis_per_dim(pod),
                       collective(CollectiveKind::kAllReduce, 3 * 64 * 100, {"x", "y", "z"}));
  ASSERT_EQ(p.shares.size(), 3U);
  for (size_t j = 0; j < 3; ++j) {
    ASSERT_EQ(p.shares[j].phases.size(), 6U);  // RS over 3 axes, AG back over 3
    const char* first[] = {"x", "y", "z"};
    EXPECT_EQ(p.shares[j].phases[0].axis, first[j]);
    EXPECT_EQ(p.shares[j].phases[5].axis, first[j]);
    EXPECT_TRUE(p.shares[j].phases[0].reduces);
    EXPECT_FALSE(p.shares[j].phases[5].reduces);
  }
  // Share of 6400 bytes: RS over 4 chips sends 1600-byte chunks.
  EXPECT_EQ(p.shares[0].phases[0].lanes[0].chunk_bytes, 1600U);
}

TEST(Plan, HierarchicalAllReduceCrossesDcnInTheMiddle) {
  const topo::Pod pod(pod_spec({{4, true}}, 2));
  const Plan p =
      lower(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllReduce, 800, {"x", "dcn"}));
  ASSERT_EQ(p.shares.size(), 1U);
  const auto& phases = p.shares[0].phases;
  ASSERT_EQ(phases.size(), 4U);
  EXPECT_EQ(phases[0].axis, "x");
  EXPECT_EQ(phases[1].axis, "dcn");
  EXPECT_EQ(phases[2].axis, "dcn");
  EXPECT_EQ(phases[3].axis, "x");
  EXPECT_EQ(phases[1].lanes.size(), 1U);  // one way over the fabric
  EXPECT_EQ(p.group_size, 8U);
}

TEST(Plan, BusBandwidthFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::kBroadcast, 8), 1.0);
}

TEST(Plan, UnknownAxisAndBadRootAreRejected) {
  const topo::Pod pod(pod_spec({{4, true}}));
  const auto mesh = one_axis_per_dim(pod);
  EXPECT_THROW(lower(pod, mesh, collective(CollectiveKind::kAllGather, 400, {"q"})),
               std::invalid_argument);
  auto c = collective(CollectiveKind::kBroadcast, 400, {"x"});
  c.root = 4;
  EXPECT_THROW(lower(pod, mesh, c), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::coll::testing
