// Broadcast on rings (issue 28): split, each half of the buffer goes one way
// all the way round every ring, so each direction of a ring link carries V/2
// instead of V. With P pieces and a depth of D hops (n - 1 per ring level
// split, floor(n/2) whole), the last chip has the buffer after
//     T = (P - 1 + D) x (piece / W1 + alpha)
// at the P in [1, 64] that minimises it (docs/collectives.md). lower() keeps the faster of the two;
// these tests write both from that closed form, never from podsim's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "coll_fixture.h"
#include "schedule_forms.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

// Bandwidth-bound on every ring below, and a multiple of 2 x 64: both halves
// and every piece of them are whole at any piece count that divides it.
constexpr uint64_t kLargeBytes = 64 * kMiB;

double split_seconds(uint64_t v, const std::vector<uint32_t>& rings) {
  uint32_t depth = 0;
  for (const uint32_t n : rings) {
    depth += n - 1;
  }
  return chain_seconds(v - v / 2, depth, {kOneWayW, kHopS});
}

double whole_seconds(uint64_t v, const std::vector<uint32_t>& rings) {
  uint32_t depth = 0;
  for (const uint32_t n : rings) {
    depth += n / 2;
  }
  return chain_seconds(v, depth, {kOneWayW, kHopS});
}

// `used` directed links carry half the buffer each (rounded up to whole
// pieces: under 64 bytes more), the rest nothing.
void expect_half_on_links(const Outcome& o, size_t used, const std::string& what) {
  size_t carrying = 0;
  for (const uint64_t b : o.link_bytes) {
    if (b > 0) {
      ++carrying;
      EXPECT_GE(b, kLargeBytes / 2) << what;
      EXPECT_LT(b, kLargeBytes / 2 + 64) << what;
    }
  }
  EXPECT_EQ(carrying, used) << what;
}

std::string describe(uint32_t n, net::Model model) {
  return "broadcast on a " + std::to_string(n) + "-ring, " + std::string(net::to_string(model));
}

class BalancedBroadcast : public ::testing::TestWithParam<std::tuple<uint32_t, net::Model>> {};

// Bandwidth-bound, split wins on every ring: half the bytes on each link
// direction, and the time of the split closed form.
TEST_P(BalancedBroadcast, SplitsBothWaysRoundTheRing) {
  const auto [n, model] = GetParam();
  const topo::Pod pod(pod_spec({{n, true}}));
  config::CollectiveSpec c = collective(CollectiveKind::kBroadcast, kLargeBytes, {"x"});
  c.root = 1;
  const Outcome o = run(pod, one_axis_per_dim(pod), c, model);
  ASSERT_TRUE(o.done);
  const std::string what = describe(n, model);
  EXPECT_NE(o.schedule.find("split over both ways"), std::string::npos)
      << what << ": " << o.schedule;
  const double expected = split_seconds(kLargeBytes, {n});
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
      << what << ": got " << o.seconds * 1e6 << " us, expected " << expected * 1e6 << " us";
  EXPECT_LT(o.seconds, whole_seconds(kLargeBytes, {n})) << what;
  // Every chip but the root receives V over one hop: V/2 on each directed
  // link but the one into the root from each side (P whole pieces of
  // ceil(V/2 / P) bytes: up to P - 1 bytes over), nothing on those two.
  EXPECT_EQ(o.bytes_sent, o.bytes_received) << what;
  expect_half_on_links(o, 2 * (n - 1), what);
}

// Latency-bound, the whole pieces half way round win: fewer hops.
TEST_P(BalancedBroadcast, KeepsPiecesWholeWhenLatencyBound) {
  const auto [n, model] = GetParam();
  const topo::Pod pod(pod_spec({{n, true}}));
  const uint64_t bytes = 4096;
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(CollectiveKind::kBroadcast, bytes, {"x"}), model);
  ASSERT_TRUE(o.done);
  const std::string what = describe(n, model);
  const double expected = std::min(whole_seconds(bytes, {n}), split_seconds(bytes, {n}));
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
      << what << ": got " << o.seconds * 1e6 << " us, expected " << expected * 1e6 << " us";
  if (n >= 4) {
    EXPECT_EQ(o.schedule.find("split"), std::string::npos) << what << ": " << o.schedule;
  }
}

std::string broadcast_name(const ::testing::TestParamInfo<BalancedBroadcast::ParamType>& info) {
  const auto [n, model] = info.param;
  return "n" + std::to_string(n) + "_" + std::string(net::to_string(model));
}

INSTANTIATE_TEST_SUITE_P(Rings, BalancedBroadcast,
                         ::testing::Combine(::testing::Values(3U, 4U, 5U, 8U, 16U),
                                            ::testing::ValuesIn(kAllModels)),
                         broadcast_name);

// A tree of split chains on 4x4x4: depth 3 per ring level, each share's
// levels on its own directions of disjoint links.
TEST(BalancedBroadcastTree, SplitsEveryRingLevelOn4x4x4) {
  const topo::Pod pod(pod_spec({{4, true}, {4, true}, {4, true}}));
  for (const net::Model model : kAllModels) {
    const Outcome o =
        run(pod, one_axis_per_dim(pod),
            collective(CollectiveKind::kBroadcast, kLargeBytes, {"x", "y", "z"}), model);
    ASSERT_TRUE(o.done);
    const std::string what = "broadcast on 4x4x4, " + std::string(net::to_string(model));
    const double expected = split_seconds(kLargeBytes, {4, 4, 4});
    EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
        << what << ": got " << o.seconds * 1e6 << " us, expected " << expected * 1e6 << " us";
    // 63 chips receive V over one hop each, half from each way.
    expect_half_on_links(o, 2 * 63, what);
  }
}

// A tree with a line level stays whole: on the line both halves would cross
// every link each way, contending (src/coll/internal/lower_point.cc).
TEST(BalancedBroadcastTree, KeepsATreeWithALineWhole) {
  const topo::Pod pod(pod_spec({{4, true}, {4, false}}));
  const Outcome o = run(pod, one_axis_per_dim(pod),
                        collective(CollectiveKind::kBroadcast, kLargeBytes, {"x", "y"}));
  ASSERT_TRUE(o.done);
  EXPECT_EQ(o.schedule.find("split"), std::string::npos) << o.schedule;
  const double expected = chain_seconds(kLargeBytes, 2 + 3, {kOneWayW, kHopS});
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected);
}

// More bytes never take less time, across the sizes where the choice between
// whole and split pieces changes, and where the piece count steps.
TEST(BalancedBroadcastMonotone, MoreBytesNeverFaster) {
  const uint64_t sizes[] = {1,
                            2,
                            7,
                            4096,
                            65537,
                            512 * 1024,
                            1 * kMiB - 1,
                            1 * kMiB,
                            2 * kMiB - 1,
                            2 * kMiB,
                            3 * kMiB,
                            8 * kMiB + 5,
                            32 * kMiB,
                            64 * kMiB,
                            65 * kMiB};
  for (const uint32_t n : {3U, 4U, 5U, 8U, 16U}) {
    const topo::Pod pod(pod_spec({{n, true}}));
    const auto mesh = one_axis_per_dim(pod);
    for (const net::Model model : kAllModels) {
      double last = 0;
      for (const uint64_t bytes : sizes) {
        const Outcome o =
            run(pod, mesh, collective(CollectiveKind::kBroadcast, bytes, {"x"}), model);
        ASSERT_TRUE(o.done);
        EXPECT_GE(o.seconds, last) << describe(n, model) << ", " << bytes << " bytes";
        last = o.seconds;
      }
    }
  }
}

}  // namespace
}  // namespace podsim::coll::testing
