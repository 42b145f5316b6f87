// Faulty hardware in the pod graph (issue 12 point 5): a dead chip has no
// links, a degraded link carries its fraction both ways with the extra
// latency, routing goes around a dead chip, and bisection finds the worst
// balanced cut when a fault sits off the middle.
#include <gtest/gtest.h>

#include <algorithm>

#include "topo/metrics.h"
#include "topo/pod.h"
#include "topo/routing.h"
#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::Dim;
using testing::torus_spec;
using testing::with_failed_link;

TEST(PodFaults, ADeadChipHasNoLinks) {
  config::PodSpec spec = torus_spec({{4, true}, {4, true}});
  spec.dead_chips.push_back({0, {1, 2}});
  const Pod pod(std::move(spec));
  const ChipId dead = pod.chip_at(0, std::vector<uint32_t>{1, 2});
  EXPECT_TRUE(pod.is_dead(dead));
  EXPECT_FALSE(pod.is_dead(0));
  EXPECT_TRUE(pod.has_failed_links());
  for (const Link& l : pod.links()) {
    EXPECT_NE(l.src, dead);
    EXPECT_NE(l.dst, dead);
  }
  EXPECT_EQ(pod.links().size(), 4U * 4 * 4 - 8);  // 64 directed links less 4 out, 4 in
  // A route past it goes around: (0, 2) to (2, 2) avoids (1, 2).
  const ChipId a = pod.chip_at(0, std::vector<uint32_t>{0, 2});
  const ChipId b = pod.chip_at(0, std::vector<uint32_t>{2, 2});
  const auto path = route(pod, a, b);
  testing::expect_walk(pod, a, b, path);
  for (const LinkId id : path) {
    EXPECT_NE(pod.link(id).dst, dead);
  }
}

TEST(PodFaults, ADegradedLinkIsSlowerBothWays) {
  config::PodSpec spec = torus_spec({{4, true}, {4, false}}, 100.0);
  spec.degraded_links.push_back({0, {3, 1}, 0, +1, 0.25, sim::Time::ns(700)});  // the x wrap
  const Pod pod(std::move(spec));
  const ChipId from = pod.chip_at(0, std::vector<uint32_t>{3, 1});
  const ChipId to = pod.chip_at(0, std::vector<uint32_t>{0, 1});
  const Link& there = pod.link(*pod.link_from(from, 0, +1));
  const Link& back = pod.link(*pod.link_from(to, 0, -1));
  for (const Link* l : {&there, &back}) {
    EXPECT_EQ(l->bandwidth, sim::Bandwidth::from_gbps(25));
    EXPECT_EQ(l->latency, sim::Time::us(1) + sim::Time::ns(700));
  }
  EXPECT_EQ(pod.link(*pod.link_from(to, 0, +1)).bandwidth, sim::Bandwidth::from_gbps(100));
  EXPECT_TRUE(pod.has_faults());
  EXPECT_FALSE(pod.has_failed_links());
}

TEST(PodFaults, StragglersAreLookedUpByChip) {
  config::PodSpec spec = torus_spec({{4, false}});
  spec.stragglers.push_back({0, {2}, 0.5, 0.8});
  const Pod pod(std::move(spec));
  ASSERT_NE(pod.straggler(2), nullptr);
  EXPECT_EQ(pod.straggler(2)->compute_factor, 0.5);
  EXPECT_EQ(pod.straggler(1), nullptr);
  EXPECT_EQ(pod.links().size(), 6U);  // the links are untouched
}

// The capacity of every balanced cut {(coord_d - r) mod n < n/2}, brute force.
sim::Bandwidth worst_rotated_cut(const Pod& pod) {
  uint64_t worst = UINT64_MAX;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const uint32_t n = pod.dim_size(d);
    for (uint32_t r = 0; r < n; ++r) {
      uint64_t sum = 0;
      for (const Link& l : pod.links()) {
        const bool a = (pod.coord(l.src, d) + n - r) % n < n / 2;
        const bool b = (pod.coord(l.dst, d) + n - r) % n < n / 2;
        sum += a && !b ? l.bandwidth.bytes_per_s() : 0;
      }
      worst = std::min(worst, sum);
    }
  }
  return sim::Bandwidth::bytes_per_s(worst);
}

// Issue 12 item 10: a failed link off the middle made a rotated cut the
// worst, and podsim topo reported the middle cut's capacity.
TEST(PodFaults, BisectionTriesEveryRotationOfTheHalfCut) {
  // 8 x 8 torus: each half cut crosses 2 links per row one way, 16 in all.
  const Pod healthy(torus_spec({{8, true}, {8, true}}));
  EXPECT_EQ(bisection(healthy)->links, 16U);
  // x 1 -> 2 failed: the middle cut (x < 4) does not cross it; the cut
  // rotated by 6 (x in {6, 7, 0, 1}) does, and has 15 links.
  const Pod pod(with_failed_link(torus_spec({{8, true}, {8, true}}), {1, 3}, 0, +1));
  const auto cut = bisection(pod);
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->links, 15U);
  EXPECT_EQ(cut->dim, 0U);
  EXPECT_NE(cut->offset, 0U);
  EXPECT_EQ(cut->bandwidth, worst_rotated_cut(pod));
  // A degraded link the same way: a quarter of its bandwidth lost.
  config::PodSpec spec = torus_spec({{8, true}, {8, true}}, 100.0);
  spec.degraded_links.push_back({0, {5, 6}, 1, +1, 0.5, sim::Time::zero()});
  const Pod degraded(std::move(spec));
  EXPECT_EQ(bisection(degraded)->bandwidth, worst_rotated_cut(degraded));
  EXPECT_EQ(bisection(degraded)->bandwidth, sim::Bandwidth::from_gbps(100 * 15 + 50));
}

}  // namespace
}  // namespace podsim::topo
