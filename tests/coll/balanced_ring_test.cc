// Balanced bidirectional rings (issue 28): on a wrapped ring of N chips every
// ring collective loads both directions of every link equally, so a
// bandwidth-bound all-gather or reduce-scatter takes (N-1)/N x V / (2 W1)
// plus floor(N/2) hop latencies, an all-reduce twice that, on every network
// model. The expected values are written from that closed form (one link
// direction carries (N-1)/2 chunks of V/N; the farthest chip is floor(N/2)
// hops away), never from podsim's output; docs/collectives.md derives it.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "coll_fixture.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

// Divisible by 2N for every N below and by 2 x 64 x 3 for the 4x4x4 shares,
// so every chunk and half chunk is whole and both directions carry equal bytes.
constexpr uint64_t kBalancedBytes = 60 * kMiB;

// One phase over a balanced ring of n chips where each chip holds `held`
// bytes to spread (all-gather) or reduce (reduce-scatter, held = the
// buffer): (n-1)/n x (n x chunk) / (2 W1) + floor(n/2) alpha, chunk the
// per-chip block of the phase.
double ring_phase_seconds(uint32_t n, double chunk) {
  return (n - 1) / 2.0 * chunk / kOneWayW + (n / 2) * kHopS;
}

double expected_seconds(CollectiveKind kind, const std::vector<uint32_t>& dims, double v) {
  // One share per dimension, in lockstep on disjoint links: one share's phases.
  const double k = static_cast<double>(dims.size());
  double group = 1;
  for (const uint32_t n : dims) {
    group *= n;
  }
  double t = 0;
  if (kind == CollectiveKind::kAllGather) {
    double held = v / k / group;
    for (const uint32_t n : dims) {
      t += ring_phase_seconds(n, held);
      held *= n;
    }
    return t;
  }
  double held = v / k;
  for (const uint32_t n : dims) {
    held /= n;
    t += ring_phase_seconds(n, held);
  }
  return kind == CollectiveKind::kAllReduce ? 2 * t : t;
}

// Per-link-direction bytes the balanced closed form puts on every link of a
// ring of N: (N-1)/2 chunks of V/N per phase (all-gather, reduce-scatter).
double expected_link_bytes(CollectiveKind kind, uint32_t n, double v) {
  const double one_pass = (n - 1) / 2.0 * v / n;
  return kind == CollectiveKind::kAllReduce ? 2 * one_pass : one_pass;
}

// Every directed link carries bytes, and all of them the same amount: both
// directions of every link are loaded equally.
void expect_balanced_links(const Outcome& o, size_t directed_links, double per_link,
                           const std::string& what) {
  uint64_t lo = UINT64_MAX;
  uint64_t hi = 0;
  size_t used = 0;
  for (const uint64_t b : o.link_bytes) {
    if (b > 0) {
      ++used;
      lo = std::min(lo, b);
      hi = std::max(hi, b);
    }
  }
  EXPECT_EQ(used, directed_links) << what;
  EXPECT_EQ(lo, hi) << what << ": link directions carry unequal bytes";
  EXPECT_DOUBLE_EQ(static_cast<double>(hi), per_link) << what;
}

class BalancedRing
    : public ::testing::TestWithParam<std::tuple<uint32_t, CollectiveKind, net::Model>> {};

TEST_P(BalancedRing, MeetsTheBalancedClosedForm) {
  const auto [n, kind, model] = GetParam();
  const topo::Pod pod(pod_spec({{n, true}}));
  const Outcome o = run(pod, one_axis_per_dim(pod), collective(kind, kBalancedBytes, {"x"}), model);
  ASSERT_TRUE(o.done);
  const double v = static_cast<double>(kBalancedBytes);
  const std::string what = std::string(to_string(kind)) + " on a " + std::to_string(n) + "-ring, " +
                           std::string(net::to_string(model));
  const double expected = expected_seconds(kind, {n}, v);
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
      << what << ": got " << o.seconds * 1e6 << " us, expected " << expected * 1e6 << " us";
  // Conservation: what was sent arrived, and the links carried exactly the
  // bandwidth-optimal bytes, (N-1)/2 x V/N per pass on each link direction.
  EXPECT_EQ(o.bytes_sent, o.bytes_received) << what;
  EXPECT_EQ(o.transfers_started, o.transfers_delivered) << what;
  expect_balanced_links(o, 2 * n, expected_link_bytes(kind, n, v), what);
  const uint64_t total = std::accumulate(o.link_bytes.begin(), o.link_bytes.end(), uint64_t{0});
  const double passes = kind == CollectiveKind::kAllReduce ? 2 : 1;
  EXPECT_DOUBLE_EQ(static_cast<double>(total), passes * (n - 1) * v) << what;
}

std::string ring_name(const ::testing::TestParamInfo<BalancedRing::ParamType>& info) {
  const auto [n, kind, model] = info.param;
  std::string k = kind == CollectiveKind::kAllGather       ? "ag"
                  : kind == CollectiveKind::kReduceScatter ? "rs"
                                                           : "ar";
  return "n" + std::to_string(n) + "_" + k + "_" + std::string(net::to_string(model));
}

INSTANTIATE_TEST_SUITE_P(Rings, BalancedRing,
                         ::testing::Combine(::testing::Values(3U, 4U, 5U, 8U, 16U),
                                            ::testing::Values(CollectiveKind::kAllGather,
                                                              CollectiveKind::kReduceScatter,
                                                              CollectiveKind::kAllReduce),
                                            ::testing::ValuesIn(kAllModels)),
                         ring_name);

// The multi-dimension shares on a 4x4x4 torus: one share per dimension, each
// visiting the dimensions in rotated order, every phase a balanced 4-ring.
class BalancedShares : public ::testing::TestWithParam<std::tuple<CollectiveKind, net::Model>> {};

TEST_P(BalancedShares, MeetTheBalancedClosedFormOn4x4x4) {
  const auto [kind, model] = GetParam();
  const topo::Pod pod(pod_spec({{4, true}, {4, true}, {4, true}}));
  const Outcome o =
      run(pod, one_axis_per_dim(pod), collective(kind, kBalancedBytes, {"x", "y", "z"}), model);
  ASSERT_TRUE(o.done);
  const double v = static_cast<double>(kBalancedBytes);
  const std::string what =
      std::string(to_string(kind)) + " on 4x4x4, " + std::string(net::to_string(model));
  const double expected = expected_seconds(kind, {4, 4, 4}, v);
  EXPECT_NEAR(o.seconds, expected, 0.02 * expected)
      << what << ": got " << o.seconds * 1e6 << " us, expected " << expected * 1e6 << " us";
  EXPECT_EQ(o.bytes_sent, o.bytes_received) << what;
  // Every directed link of the torus (64 chips x 3 dimensions x 2 ways)
  // carries one share's phase over its dimension from each of the three
  // shares: the same bytes on every one.
  // Share j's phases move blocks of V/(3x64), V/(3x16) and V/(3x4) (an
  // all-gather in that order, a reduce-scatter in the reverse), each over a
  // different dimension, so a link of each dimension sees each size once,
  // (4-1)/2 blocks of it per link direction.
  const double pass = 1.5 * (v / 3) * (1.0 / 64 + 1.0 / 16 + 1.0 / 4);
  expect_balanced_links(o, 64 * 3 * 2, kind == CollectiveKind::kAllReduce ? 2 * pass : pass, what);
}

std::string shares_name(const ::testing::TestParamInfo<BalancedShares::ParamType>& info) {
  const auto [kind, model] = info.param;
  std::string k = kind == CollectiveKind::kAllGather       ? "ag"
                  : kind == CollectiveKind::kReduceScatter ? "rs"
                                                           : "ar";
  return k + "_" + std::string(net::to_string(model));
}

INSTANTIATE_TEST_SUITE_P(Torus4x4x4, BalancedShares,
                         ::testing::Combine(::testing::Values(CollectiveKind::kAllGather,
                                                              CollectiveKind::kReduceScatter,
                                                              CollectiveKind::kAllReduce),
                                            ::testing::ValuesIn(kAllModels)),
                         shares_name);

// More bytes never take less time, over sizes from latency-bound to
// bandwidth-bound, odd ones included (chunks that do not split evenly).
TEST(BalancedRingMonotone, MoreBytesNeverFaster) {
  const uint64_t sizes[] = {
      1, 7, 64, 1000, 4096, 65537, 1 * kMiB, 1 * kMiB + 3, 8 * kMiB, 8 * kMiB + 5, 32 * kMiB};
  for (const uint32_t n : {3U, 4U, 5U, 8U}) {
    const topo::Pod pod(pod_spec({{n, true}}));
    const auto mesh = one_axis_per_dim(pod);
    for (const CollectiveKind kind :
         {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, CollectiveKind::kAllReduce}) {
      for (const net::Model model : kAllModels) {
        double last = 0;
        for (const uint64_t bytes : sizes) {
          const Outcome o = run(pod, mesh, collective(kind, bytes, {"x"}), model);
          ASSERT_TRUE(o.done);
          EXPECT_GE(o.seconds, last)
              << to_string(kind) << " on a " << n << "-ring, " << std::string(net::to_string(model))
              << ", " << bytes << " bytes";
          last = o.seconds;
        }
      }
    }
  }
}

}  // namespace
}  // namespace podsim::coll::testing
