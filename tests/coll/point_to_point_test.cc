// Point-to-point sends and multi-axis broadcasts against their closed forms.
// A send between chips that differ in k torus dimensions splits its bytes
// over the k link-disjoint dimension-ordered routes (the k rotations of the
// dimension order), as ICI does: its first byte arrives after hops x hop
// latency, its last after bytes / (k x W1) + that latency. A broadcast over
// two axes pipelines its pieces from one axis into the next: the tree's
// depth is the sum of its levels'.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "coll_fixture.h"
#include "schedule_forms.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

constexpr double kW1 = kLinkGBps * 1e9;

config::CollectiveSpec send(uint64_t bytes, std::vector<config::ChipPair> pairs) {
  config::CollectiveSpec c;
  c.kind = CollectiveKind::kSend;
  c.bytes = bytes;
  c.pairs = std::move(pairs);
  return c;
}

config::ChipPair pair(std::vector<uint32_t> src, std::vector<uint32_t> dst) {
  return {{0, std::move(src)}, {0, std::move(dst)}};
}

void expect_seconds(double actual, double expected, double rel, const std::string& what) {
  EXPECT_NEAR(actual, expected, rel * expected)
      << what << ": got " << actual * 1e6 << " us, expected " << expected * 1e6 << " us";
}

struct SendCase {
  const char* label;
  std::vector<Dim> dims;
  std::vector<uint32_t> src;
  std::vector<uint32_t> dst;
  uint32_t routes;
  uint32_t hops;
};

// How gtest names a case in CTest and in failure messages.
void PrintTo(const SendCase& c, std::ostream* os) {
  *os << c.label;
}

class Send : public ::testing::TestWithParam<SendCase> {};

TEST_P(Send, FirstByteIsHopsTimesLatencyAndBytesSplitOverRoutes) {
  const SendCase& k = GetParam();
  const topo::Pod pod(pod_spec(k.dims));
  const auto mesh = one_axis_per_dim(pod);
  const Plan plan = lower(pod, mesh, send(1, {pair(k.src, k.dst)}));
  ASSERT_EQ(plan.shares.size(), 1U);
  EXPECT_EQ(plan.shares[0].phases[0].paths.size(), k.routes);
  // One byte: the latency of the route alone (the byte itself takes 0.02 ns).
  const Outcome tiny = run(pod, mesh, send(1, {pair(k.src, k.dst)}));
  expect_seconds(tiny.seconds, k.hops * kHopS, 1e-3, "first byte");
  for (const net::Model m : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    const uint64_t bytes = 64 * kMiB;
    const Outcome big = run(pod, mesh, send(bytes, {pair(k.src, k.dst)}), m);
    ASSERT_TRUE(big.done);
    EXPECT_EQ(big.bytes_received, bytes);
    expect_seconds(big.seconds, static_cast<double>(bytes) / (k.routes * kW1) + k.hops * kHopS,
                   0.01, std::string(k.label) + " on " + std::string(net::to_string(m)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Send,
    ::testing::Values(
        SendCase{"neighbour", {{4, true}, {4, true}}, {0, 0}, {1, 0}, 1, 1},
        SendCase{"two_dims", {{4, true}, {4, true}}, {0, 0}, {1, 3}, 2, 2},
        SendCase{"far_on_a_line", {{8, false}, {8, false}}, {0, 1}, {6, 7}, 2, 12},
        SendCase{"opposite_on_a_ring", {{8, true}}, {1}, {5}, 2, 4},
        SendCase{"three_dims", {{4, true}, {4, true}, {4, true}}, {0, 0, 0}, {1, 2, 3}, 3, 4}),
    [](const auto& param) { return std::string(param.param.label); });

TEST(SendPairs, DisjointPairsRunAtOnceAndSharedLinksSplitTheirBandwidth) {
  const topo::Pod pod(pod_spec({{4, false}, {4, false}}));
  const auto mesh = one_axis_per_dim(pod);
  const uint64_t bytes = 16 * kMiB;
  // A KV-cache migration from column x = 0 to column x = 1: four disjoint
  // one-hop routes, each as fast as one alone.
  std::vector<config::ChipPair> column;
  for (uint32_t y = 0; y < 4; ++y) {
    column.push_back(pair({0, y}, {1, y}));
  }
  const Outcome o = run(pod, mesh, send(bytes, column));
  expect_seconds(o.seconds, static_cast<double>(bytes) / kW1 + kHopS, 1e-3, "column");
  EXPECT_EQ(o.bytes_received, 4 * bytes);
  // Two sends over the same link share it: twice the time.
  const Outcome shared = run(pod, mesh, send(bytes, {pair({0, 0}, {2, 0}), pair({1, 0}, {2, 0})}));
  expect_seconds(shared.seconds, 2.0 * static_cast<double>(bytes) / kW1 + 2 * kHopS, 1e-2,
                 "shared link");
}

TEST(SendPairs, AcrossSlicesGoesOverDcn) {
  const topo::Pod pod(pod_spec({{4, true}}, 2));
  const uint64_t bytes = 8 * kMiB;
  const Outcome o = run(pod, one_axis_per_dim(pod), send(bytes, {{{0, {1}}, {1, {1}}}}));
  expect_seconds(o.seconds, static_cast<double>(bytes) / (kDcnGBps * 1e9) + kDcnLatencyS, 1e-3,
                 "DCN");
}

TEST(MultiAxisBroadcast, PipelinesIntoTheSecondAxis) {
  const topo::Pod pod(pod_spec({{4, false}, {4, false}}));
  const auto mesh = one_axis_per_dim(pod);
  const uint64_t bytes = 17 * kMiB;
  const FormLink link{kW1, kHopS};
  const Outcome one = run(pod, mesh, collective(CollectiveKind::kBroadcast, bytes, {"x"}));
  const Outcome two = run(pod, mesh, collective(CollectiveKind::kBroadcast, bytes, {"x", "y"}));
  // From the root at (0, 0): 3 hops along x, then 3 more along y, at the
  // piece count that minimises each tree's time.
  expect_seconds(one.seconds, chain_seconds(bytes, 3, link), 1e-3, "one axis");
  expect_seconds(two.seconds, chain_seconds(bytes, 6, link), 1e-3, "two axes");
  EXPECT_GT(two.seconds, one.seconds);
  // The snake runs one chain over all 16 chips: 15 hops deep.
  auto snake = collective(CollectiveKind::kBroadcast, bytes, {"x", "y"});
  snake.algorithm = config::CollectiveAlgorithm::kSnakeRing;
  const Outcome chain = run(pod, mesh, snake);
  expect_seconds(chain.seconds, chain_seconds(bytes, 15, link), 1e-3, "snake");
}

}  // namespace
}  // namespace podsim::coll::testing
