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
  // An even ring: chunks of V / N = 100 go n/2 steps each way, the last
  // step carrying only half of the opposite chip's chunk each way.
  ASSERT_EQ(ph.lanes.size(), 2U);
  for (size_t l = 0; l < 2; ++l) {
    EXPECT_EQ(ph.lanes[l].steps, 8U) << l;
    EXPECT_EQ(ph.lanes[l].chunk_bytes, 100U) << l;
    EXPECT_EQ(ph.lanes[l].short_step, 7U) << l;
    EXPECT_EQ(ph.lanes[l].short_bytes, 50U) << l;
  }
  EXPECT_EQ(ph.lanes[0].direction, +1);
  EXPECT_EQ(ph.lanes[1].direction, -1);
  EXPECT_EQ(p.group_size, 16U);
}

TEST(Plan, OddRingSendsWholeChunksHalfWayEachWay) {
  const topo::Pod pod(pod_spec({{5, true}}));
  const Plan p =
      lower(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllGather, 500, {"x"}));
  const Phase& ph = p.shares[0].phases[0];
  ASSERT_EQ(ph.lanes.size(), 2U);
  EXPECT_EQ(ph.lanes[0].steps, 2U);
  EXPECT_EQ(ph.lanes[1].steps, 2U);
  EXPECT_EQ(ph.lanes[0].chunk_bytes, 100U);
  EXPECT_EQ(ph.lanes[0].short_step, kNoShortStep);
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
    const char* first[] = {"x ring", "y ring", "z ring"};
    EXPECT_EQ(p.shares[j].phases[0].axis, first[j]);
    EXPECT_EQ(p.shares[j].phases[5].axis, first[j]);
    EXPECT_TRUE(p.shares[j].phases[0].reduces);
    EXPECT_FALSE(p.shares[j].phases[5].reduces);
  }
  // Share of 6400 bytes: RS over 4 chips sends 1600-byte chunks; its first
  // step carries half of the opposite chip's contribution each way.
  EXPECT_EQ(p.shares[0].phases[0].lanes[0].chunk_bytes, 1600U);
  EXPECT_EQ(p.shares[0].phases[0].lanes[0].short_step, 0U);
  EXPECT_EQ(p.shares[0].phases[0].lanes[0].short_bytes, 800U);
}

TEST(Plan, HierarchicalAllReduceCrossesDcnInTheMiddle) {
  const topo::Pod pod(pod_spec({{4, true}}, 2));
  const Plan p =
      lower(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllReduce, 800, {"x", "dcn"}));
  ASSERT_EQ(p.shares.size(), 1U);
  const auto& phases = p.shares[0].phases;
  ASSERT_EQ(phases.size(), 4U);
  EXPECT_EQ(phases[0].axis, "x ring");
  EXPECT_EQ(phases[1].axis, "slice");
  EXPECT_EQ(phases[2].axis, "slice");
  EXPECT_EQ(phases[3].axis, "x ring");
  EXPECT_EQ(phases[1].lanes.size(), 1U);  // one way over the fabric
  EXPECT_EQ(p.group_size, 8U);
}

TEST(Plan, OneAxisOverTwoDimensionsRunsOneRingPerDimension) {
  const topo::Pod pod(pod_spec({{4, true}, {8, false}}));
  const topo::DeviceMesh mesh(pod, {{"xy", {0, 1}}});
  const Plan p = lower(pod, mesh, collective(CollectiveKind::kAllGather, 2 * 32 * 10, {"xy"}));
  ASSERT_EQ(p.shares.size(), 2U);
  EXPECT_EQ(p.group_size, 32U);
  EXPECT_EQ(p.schedule, "x ring + y line (2 shares)");
  const Phase& x = p.shares[0].phases[0];
  const Phase& y = p.shares[1].phases[0];
  EXPECT_EQ(x.pattern, Pattern::kRing);
  EXPECT_EQ(y.pattern, Pattern::kLineGather);
  // Each lane runs over the groups of one dimension: 4 and 8 chips.
  EXPECT_EQ(p.group_sets[x.lanes[0].group_set].groups.front().size(), 4U);
  EXPECT_EQ(p.group_sets[y.lanes[0].group_set].groups.front().size(), 8U);
  EXPECT_EQ(x.lanes[0].walk_dim, 0);
  EXPECT_EQ(y.lanes[0].walk_dim, 1);
}

TEST(Plan, SnakeRingKeepsTheAxisAsOneRing) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}}));
  const topo::DeviceMesh mesh(pod, {{"xy", {0, 1}}});
  auto c = collective(CollectiveKind::kAllReduce, 16 * 10, {"xy"});
  c.algorithm = config::CollectiveAlgorithm::kSnakeRing;
  const Plan p = lower(pod, mesh, c);
  ASSERT_EQ(p.shares.size(), 1U);
  ASSERT_EQ(p.shares[0].phases.size(), 2U);
  const Lane& lane = p.shares[0].phases[0].lanes[0];
  EXPECT_EQ(p.group_sets[lane.group_set].groups.front().size(), 16U);
  EXPECT_EQ(lane.walk_dim, kNoWalk);
  EXPECT_EQ(p.schedule, "xy snake ring");
}

TEST(Plan, BroadcastOverTwoDimensionsIsATreeOfChains) {
  const topo::Pod pod(pod_spec({{4, false}, {4, false}}));
  const topo::DeviceMesh mesh(pod, {{"xy", {0, 1}}});
  auto c = collective(CollectiveKind::kBroadcast, 8 * kMiB, {"xy"});
  c.root = 6;  // snake position 6: x = 4 - 1 - 2 = 1 on the reversed second row, y = 1
  const Plan p = lower(pod, mesh, c);
  ASSERT_EQ(p.shares.size(), 1U);
  const Phase& ph = p.shares[0].phases[0];
  EXPECT_EQ(ph.pattern, Pattern::kChain);
  // The piece count that minimises (P - 1 + D) x (8 MiB / P / W1 + alpha)
  // with depth D = 2 + 2 from the root at (1, 1) of two 4-lines:
  // P = sqrt((D - 1) x V / (W1 alpha)) = sqrt(3 x 167.8) = 22.4, and 22 is
  // the better of its two neighbours.
  EXPECT_EQ(ph.pieces, 22U);
  ASSERT_EQ(ph.levels.size(), 2U);
  EXPECT_EQ(ph.levels[0].dim, 0U);
  EXPECT_EQ(ph.levels[0].root, 1U);
  EXPECT_EQ(ph.levels[1].dim, 1U);
  EXPECT_EQ(ph.levels[1].root, 1U);
  ASSERT_EQ(ph.lanes.size(), 4U);  // both ways on each level
  EXPECT_EQ(ph.lanes[2].level, 1U);
}

TEST(Plan, SendSplitsOverDisjointRoutes) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}}));
  config::CollectiveSpec c;
  c.kind = CollectiveKind::kSend;
  c.bytes = 1001;
  c.pairs = {{{0, {0, 0}}, {0, {1, 1}}}};
  const Plan p = lower(pod, one_axis_per_dim(pod), c);
  ASSERT_EQ(p.shares.size(), 1U);
  const auto& paths = p.shares[0].phases[0].paths;
  ASSERT_EQ(paths.size(), 2U);  // x then y, and y then x
  EXPECT_EQ(paths[0].bytes + paths[1].bytes, 1001U);
  EXPECT_EQ(paths[0].route.size(), 2U);
  EXPECT_EQ(paths[1].route.size(), 2U);
  EXPECT_NE(paths[0].route.front(), paths[1].route.front());
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
