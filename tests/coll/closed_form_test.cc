// Collectives against the closed forms of [SB] ("How to Scale Your Model",
// chapter "sharding", https://jax-ml.github.io/scaling-book/sharding/):
// V = bytes of the whole array, W = both directions of an axis (2 x one-way
// link bandwidth), T_min = 1 us per hop. Every expected value below is
// computed from those formulas, never from podsim's output.
#include <gtest/gtest.h>

#include "coll_fixture.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

constexpr double kOneWay = kLinkGBps * 1e9;

void expect_within(double actual, double expected, double rel, const char* what) {
  EXPECT_NEAR(actual, expected, expected * rel)
      << what << ": got " << actual * 1e6 << " us, expected " << expected * 1e6 << " us";
}

TEST(ClosedForm, AllGatherOnRingIsVOverW) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const auto mesh = one_axis_per_dim(pod);
  const double v = static_cast<double>(kGiB);
  const Outcome o = run(pod, mesh, collective(CollectiveKind::kAllGather, kGiB, {"x"}));
  ASSERT_TRUE(o.done);
  // T = max(T_min |X| / 2, V / W), V / W exactly (N-1)/N x V / W with both
  // directions of every link balanced; the latency is added, not maxed, in a
  // store-and-forward ring, and is 0.1% of the total here.
  expect_within(o.seconds, 15.0 / 16 * v / kW + 8 * kHopS, 0.02, "all-gather");
}

TEST(ClosedForm, ReduceScatterOnRingIsVOverW) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kReduceScatter, kGiB, {"x"}));
  expect_within(o.seconds, 15.0 / 16 * static_cast<double>(kGiB) / kW + 8 * kHopS, 0.02,
                "reduce-scatter");
}

TEST(ClosedForm, AllReduceOnRingIsTwoVOverW) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllReduce, kGiB, {"x"}));
  expect_within(o.seconds, 2 * 15.0 / 16 * static_cast<double>(kGiB) / kW + 16 * kHopS, 0.02,
                "all-reduce");
}

TEST(ClosedForm, LineWithoutWraparoundIsAboutDouble) {
  const topo::Pod ring(pod_spec({{16, true}}));
  const topo::Pod line(pod_spec({{16, false}}));
  const auto c = collective(CollectiveKind::kAllGather, kGiB, {"x"});
  const Outcome on_ring = run(ring, one_axis_per_dim(ring), c);
  const Outcome on_line = run(line, one_axis_per_dim(line), c);
  const double n = 16;
  const double v = static_cast<double>(kGiB);
  // [SB]: roughly (N-1) * (V/N) / W_one-way without wraparound.
  expect_within(on_line.seconds, (n - 1) * (v / n) / kOneWay + 15 * kHopS, 0.02, "line");
  const double ratio = on_line.seconds / on_ring.seconds;
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 2.0);
}

TEST(ClosedForm, LineReduceScatterMatchesLineAllGather) {
  const topo::Pod line(pod_spec({{8, false}}));
  const auto mesh = one_axis_per_dim(line);
  const Outcome ag = run(line, mesh, collective(CollectiveKind::kAllGather, 256 * kMiB, {"x"}));
  const Outcome rs = run(line, mesh, collective(CollectiveKind::kReduceScatter, 256 * kMiB, {"x"}));
  expect_within(rs.seconds, ag.seconds, 0.01, "line reduce-scatter vs all-gather");
}

TEST(ClosedForm, SmallAllGatherIsLatencyBound) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllGather, 16 * 64, {"x"}));
  // T_min * |X| / 2.
  expect_within(o.seconds, kHopS * 16 / 2, 0.02, "latency-bound all-gather");
}

TEST(ClosedForm, TwoAxisAllGatherUsesBothAxes) {
  const topo::Pod pod(pod_spec({{16, true}, {16, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllGather, kGiB, {"x", "y"}));
  const double v = static_cast<double>(kGiB);
  // [SB]: V / (W x number of axes). Each share first gathers over one axis
  // the 1/N-th it holds, which adds 1/N, and each ring moves (N-1)/N of it:
  // exactly 15/16 x V / (2W) x (1 + 1/16).
  expect_within(o.seconds, 15.0 / 16 * v / (2 * kW) * (1 + 1.0 / 16) + 16 * kHopS, 0.02,
                "two-axis exact");
  expect_within(o.seconds, v / (2 * kW), 0.07, "two-axis [SB]");
}

TEST(ClosedForm, ThreeAxisAllReduce) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}, {4, true}}));
  const Outcome o = run(pod, one_axis_per_dim(pod),
                        collective(CollectiveKind::kAllReduce, 3 * 64 * kMiB, {"x", "y", "z"}));
  const double v = 3.0 * 64 * kMiB;
  // 2V / (W x 3), plus the 1/4 and 1/16 of the later phases of each share,
  // each 4-ring moving 3/4 of its phase's bytes per link direction.
  const double exact = 3.0 / 4 * 2 * v / (3 * kW) * (1 + 1.0 / 4 + 1.0 / 16);
  expect_within(o.seconds, exact, 0.02, "three-axis all-reduce");
}

TEST(ClosedForm, AllToAllOnRing) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const uint64_t bytes = 256 * kMiB;  // divisible by 16^2
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllToAll, bytes, {"x"}));
  // V x max(dims) / (4 x N x W) = V / (4W) on one ring.
  expect_within(o.seconds, static_cast<double>(bytes) * 16 / (4 * 16 * kW), 0.10, "all-to-all");
}

TEST(ClosedForm, AllToAllOn3DTorus) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}, {4, true}}));
  // 1 MiB per (src, dst) pair (V divisible by 64 x 64), so that bandwidth
  // dominates: at 16 KiB per pair the formula gives 10.5 us while the 6-hop
  // routes alone cost up to 6 us of latency. Max-min sharing over the
  // dimension-ordered routes (ties split both ways round) meets the formula's
  // bandwidth term exactly; the run ends 3 us (3 hop latencies, 0.45%) later.
  const uint64_t bytes = 64 * 64 * kMiB;
  const double formula = static_cast<double>(bytes) * 4 / (4 * 64 * kW);
  // The default: one direct exchange per axis, the buffer split over the axes.
  const Outcome phased = run(pod, one_axis_per_dim(pod),
                             collective(CollectiveKind::kAllToAll, bytes, {"x", "y", "z"}));
  expect_within(phased.seconds, formula, 0.02, "3D all-to-all, per-axis phases");
  // DIRECT: every pair at once along its dimension-ordered route.
  auto direct = collective(CollectiveKind::kAllToAll, bytes, {"x", "y", "z"});
  direct.algorithm = config::CollectiveAlgorithm::kDirect;
  const Outcome d = run(pod, one_axis_per_dim(pod), direct);
  expect_within(d.seconds, formula, 0.02, "3D all-to-all, direct");
  // Same bytes on the wire, far fewer flows at once.
  EXPECT_LT(phased.transfers_started, d.transfers_started);
}

TEST(ClosedForm, AllToAllOverTwoAxesOfA2DTorus) {
  const topo::Pod pod(pod_spec({{8, true}, {16, true}}));
  const uint64_t bytes = 128 * 128 * 64 * 1024;  // 64 KiB per pair
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kAllToAll, bytes, {"x", "y"}));
  // V x max(dims) / (4 x N x W): the longer axis sets the time.
  expect_within(o.seconds, static_cast<double>(bytes) * 16 / (4 * 128 * kW), 0.10, "2D all-to-all");
}

TEST(ClosedForm, PermuteIsOneHop) {
  const topo::Pod pod(pod_spec({{8, true}}));
  auto c = collective(CollectiveKind::kPermute, 64 * kMiB, {"x"});
  c.shift = 1;
  const Outcome o = run(pod, one_axis_per_dim(pod), c);
  expect_within(o.seconds, 64.0 * kMiB / kOneWay + kHopS, 0.001, "permute");
}

// A cyclic shift over a line (CollectiveSpec::cyclic: a looped collective
// matmul's collective-permute, as XLA's cycle is): the last chip's transfer
// to the first crosses the whole line on the links the others leave free
// (theirs go the other way), so every link direction carries V once and the
// time is one link's V plus the long transfer's N - 1 hops; the two shifts of
// a bidirectional step together load every link direction twice.
TEST(ClosedForm, CyclicShiftOverALineCrossesItBack) {
  for (const net::Model model : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    SCOPED_TRACE(net::to_string(model));
    const topo::Pod pod(pod_spec({{4, false}}));
    auto c = collective(CollectiveKind::kPermute, 64 * kMiB, {"x"});
    c.shift = 1;
    const Outcome plain = run(pod, one_axis_per_dim(pod), c, model);
    c.cyclic = true;
    const Outcome cyclic = run(pod, one_axis_per_dim(pod), c, model);
    const double one_link = 64.0 * kMiB / kOneWay;
    expect_within(plain.seconds, one_link + kHopS, 0.001, "line shift");
    expect_within(cyclic.seconds, one_link + 3 * kHopS, 0.01, "cyclic line shift");
    EXPECT_EQ(cyclic.transfers_delivered, 4U);
    EXPECT_EQ(plain.transfers_delivered, 3U);
  }
}

TEST(ClosedForm, BroadcastPipelinesAlongTheRing) {
  const topo::Pod pod(pod_spec({{16, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kBroadcast, 256 * kMiB, {"x"}));
  const double half_pass = 128.0 * kMiB / kOneWay;
  // Each half of V one way all the way round: at least the time to push V/2
  // through one link; pipelined over 64 pieces, the 15-hop chain adds 14/64
  // of that (the whole V both ways, 8 hops deep, would take about twice).
  EXPECT_GE(o.seconds, half_pass);
  expect_within(o.seconds, (half_pass / 64 + kHopS) * (64 - 1 + 15), 0.02, "broadcast");
}

TEST(ClosedForm, AllReduceAcrossTwoSlicesOverDcn) {
  const topo::Pod pod(pod_spec({{4, true}}, 2));
  const auto mesh = one_axis_per_dim(pod);
  const double v = 64.0 * kMiB;
  const Outcome dcn_only =
      run(pod, mesh, collective(CollectiveKind::kAllReduce, 64 * kMiB, {"dcn"}));
  // A ring of 2 over DCN: reduce-scatter and all-gather of V/2 each way.
  expect_within(dcn_only.seconds, v / (kDcnGBps * 1e9) + 2 * kDcnLatencyS, 0.01, "DCN");

  const Outcome hier =
      run(pod, mesh, collective(CollectiveKind::kAllReduce, 64 * kMiB, {"x", "dcn"}));
  // Reduce-scatter in the slice (3/4 V/W on a 4-ring), all-reduce of V/4
  // over DCN, all-gather in the slice (3/4 V/W).
  const double expected =
      2 * 3.0 / 4 * v / kW + (v / 4) / (kDcnGBps * 1e9) + 2 * kDcnLatencyS + 4 * kHopS;
  expect_within(hier.seconds, expected, 0.01, "hierarchical");
}

TEST(ClosedForm, UnidirectionalRingIsHalfAsFast) {
  const topo::Pod pod(pod_spec({{16, true}}));
  auto c = collective(CollectiveKind::kAllGather, kGiB, {"x"});
  c.algorithm = config::CollectiveAlgorithm::kUnidirectionalRing;
  const Outcome o = run(pod, one_axis_per_dim(pod), c);
  const double v = static_cast<double>(kGiB);
  expect_within(o.seconds, 15 * (v / 16) / kOneWay + 15 * kHopS, 0.01, "one-way ring");
}

TEST(ClosedForm, SequentialAxesAreSlowerThanSplit) {
  const topo::Pod pod(pod_spec({{16, true}, {16, true}}));
  auto c = collective(CollectiveKind::kAllReduce, 256 * kMiB, {"x", "y"});
  const Outcome split = run(pod, one_axis_per_dim(pod), c);
  c.algorithm = config::CollectiveAlgorithm::kSequentialAxes;
  const Outcome sequential = run(pod, one_axis_per_dim(pod), c);
  const double v = 256.0 * kMiB;
  expect_within(sequential.seconds, 2 * 15.0 / 16 * v / kW * (1 + 1.0 / 16), 0.02, "sequential");
  EXPECT_GT(sequential.seconds, 1.8 * split.seconds);
}

TEST(ClosedForm, ModelsAgreeOnContentionFreeRing) {
  const topo::Pod pod(pod_spec({{8, true}}));
  const auto mesh = one_axis_per_dim(pod);
  const auto c = collective(CollectiveKind::kAllReduce, 64 * kMiB, {"x"});
  const double flow = run(pod, mesh, c, net::Model::kFlow).seconds;
  const double analytical = run(pod, mesh, c, net::Model::kAnalytical).seconds;
  const double packet = run(pod, mesh, c, net::Model::kPacket).seconds;
  expect_within(analytical, flow, 0.01, "analytical vs flow");
  expect_within(packet, flow, 0.01, "packet vs flow");
}

}  // namespace
}  // namespace podsim::coll::testing
