// Diameter, per-chip and per-axis bandwidth, bisection.
#include "topo/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::ReferenceTorus;
using testing::torus_spec;

sim::Bandwidth gbps(double v) {
  return sim::Bandwidth::from_gbps(v);
}

TEST(MetricsTest, ClosedFormDiametersMatchBruteForce) {
  const std::vector<std::pair<std::vector<testing::Dim>, uint32_t>> cases = {
      {{{8, true}}, 4},
      {{{8, false}}, 7},
      {{{4, true}, {4, true}}, 4},
      {{{4, false}, {4, false}}, 6},
      {{{8, false}, {16, true}}, 7 + 8},
      {{{4, true}, {4, true}, {4, true}}, 6},
      {{{3, true}, {4, false}, {5, true}}, 1 + 3 + 2},
  };
  for (const auto& [dims, expected] : cases) {
    const Pod pod(torus_spec(dims));
    EXPECT_EQ(diameter_hops(pod), expected);
    EXPECT_EQ(ReferenceTorus(pod.spec()).diameter(), int64_t{expected});
  }
}

TEST(MetricsTest, TwistedDiameterMatchesBruteForceAndBeatsThePlainTorus) {
  auto spec = torus_spec({{4, true}, {4, true}, {8, true}});
  const uint32_t plain = *diameter_hops(Pod(spec));
  EXPECT_EQ(plain, 2u + 2 + 4);
  spec.torus.twists = {{0, 2, 4}, {1, 2, 4}};
  const auto twisted = diameter_hops(Pod(spec));
  ASSERT_TRUE(twisted);
  EXPECT_EQ(int64_t{*twisted}, ReferenceTorus(spec).diameter());
  EXPECT_LT(*twisted, plain);
  // A twist chain (not vertex-transitive): BFS from every chip.
  spec.torus.twists = {{0, 1, 1}, {1, 2, 3}};
  EXPECT_EQ(int64_t{*diameter_hops(Pod(spec))}, ReferenceTorus(spec).diameter());
}

TEST(MetricsTest, FailedLinksRaiseOrCutTheDiameter) {
  const auto spec = testing::with_failed_link(torus_spec({{4, false}, {4, false}}), {1, 1}, 1, +1);
  EXPECT_EQ(int64_t{*diameter_hops(Pod(spec))}, ReferenceTorus(spec).diameter());
  // A failure in slice 1 of 2: that slice decides.
  const auto sliced = testing::with_failed_link(
      testing::with_slices(torus_spec({{8, true}}), 2, 10), {3}, 0, +1, 1);
  EXPECT_EQ(diameter_hops(Pod(sliced)), 7u);
  EXPECT_EQ(ReferenceTorus(sliced).diameter(), 7);
  EXPECT_FALSE(diameter_hops(Pod(testing::with_failed_link(torus_spec({{8, false}}), {3}, 0, +1))));
}

TEST(MetricsTest, PerChipBandwidthCountsBothDirections) {
  // v5e: 4 ports x 50 GB/s x 2 = 400 GB/s per chip.
  const auto v5e = chip_ici_bandwidth(Pod(torus_spec({{16, true}, {16, true}}, 50)));
  EXPECT_EQ(v5e.typical, gbps(400));
  EXPECT_EQ(v5e.min, gbps(400));
  EXPECT_EQ(v5e.max, gbps(400));
  // 8x16 wrapping on 16 only: the 32 chips at the ends of the 8-lines have 3 ports.
  const auto mixed = chip_ici_bandwidth(Pod(torus_spec({{8, false}, {16, true}}, 50)));
  EXPECT_EQ(mixed.typical, gbps(400));
  EXPECT_EQ(mixed.min, gbps(300));
  EXPECT_EQ(mixed.max, gbps(400));
  // v5p 3D: 6 ports x 100 GB/s x 2.
  EXPECT_EQ(chip_ici_bandwidth(Pod(torus_spec({{4, true}, {4, true}, {4, true}}, 100))).typical,
            gbps(1200));
}

TEST(MetricsTest, AxisBandwidthIsBothDirectionsOutOfOneChip) {
  const auto axes =
      axis_bandwidths(Pod(torus_spec({{16, true}, {4, false}, {2, false}, {1, false}}, 45)));
  ASSERT_EQ(axes.size(), 4u);
  EXPECT_EQ(axes[0].name, "x");
  EXPECT_EQ(axes[0].size, 16u);
  EXPECT_TRUE(axes[0].wraparound);
  EXPECT_EQ(axes[0].link, gbps(45));
  EXPECT_EQ(axes[0].per_chip, gbps(90));
  EXPECT_EQ(axes[1].per_chip, gbps(90));
  EXPECT_EQ(axes[2].per_chip, gbps(45));
  EXPECT_EQ(axes[3].per_chip, gbps(0));
}

TEST(MetricsTest, BisectionAsGoogleQuotesIt) {
  // v5e 16x16 with wraparound: a cut crosses 16 rows twice (middle and wrap).
  const auto v5e = bisection(Pod(torus_spec({{16, true}, {16, true}}, 50)));
  ASSERT_TRUE(v5e);
  EXPECT_EQ(v5e->links, 32u);
  EXPECT_EQ(v5e->bandwidth, gbps(1600));
  EXPECT_EQ(v5e->dim, 0u);
  // 8x16, wrap on 16 only: cutting the 8-line crosses 16 links, cutting the
  // 16-ring crosses 8 x 2; both 800 GB/s, the lower dimension is reported.
  const auto mixed = bisection(Pod(torus_spec({{8, false}, {16, true}}, 50)));
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->links, 16u);
  EXPECT_EQ(mixed->bandwidth, gbps(800));
  EXPECT_EQ(mixed->dim, 0u);
  // 4x4 mesh: a cut crosses the 4 links between columns 1 and 2.
  const auto mesh = bisection(Pod(torus_spec({{4, false}, {4, false}}, 50)));
  EXPECT_EQ(mesh->links, 4u);
  EXPECT_EQ(mesh->bandwidth, gbps(200));
  // 4x16 torus: halving the 16s crosses 4 rings twice (8 links), halving the
  // 4s crosses 16 rings twice (32 links).
  const auto narrow = bisection(Pod(torus_spec({{4, true}, {16, true}}, 50)));
  EXPECT_EQ(narrow->links, 8u);
  EXPECT_EQ(narrow->dim, 1u);
  EXPECT_FALSE(bisection(Pod(torus_spec({{1, false}}))));
}

TEST(MetricsTest, BisectionHonoursFailedLinksAndTwists) {
  const auto failed = bisection(
      Pod(testing::with_failed_link(torus_spec({{4, false}, {4, false}}, 50), {1, 2}, 0, +1)));
  EXPECT_EQ(failed->links, 3u);
  // Twisted 4x4x8: count the reference graph's links that cross each half cut.
  auto spec = torus_spec({{4, true}, {4, true}, {8, true}}, 50);
  spec.torus.twists = {{0, 2, 4}, {1, 2, 4}};
  const ReferenceTorus ref(spec);
  uint64_t best = UINT64_MAX;
  for (uint32_t d = 0; d < 3; ++d) {
    const uint32_t half = spec.torus.dims[d].size / 2;
    uint64_t crossing = 0;
    for (uint32_t chip = 0; chip < ref.chip_count(); ++chip) {
      for (uint32_t e = 0; e < 3; ++e) {
        for (const int dir : {+1, -1}) {
          const int64_t n = ref.neighbour(chip, e, dir);
          if (n >= 0 && ref.coords(chip)[d] < half &&
              ref.coords(static_cast<uint32_t>(n))[d] >= half) {
            ++crossing;
          }
        }
      }
    }
    best = std::min(best, crossing);
  }
  EXPECT_EQ(bisection(Pod(spec))->links, best);
}

// On a twisted torus the axis-aligned half cuts are not the only natural
// ones: "linear" cuts {chip : (s . coords mod N) < N/2} follow the twisted
// lattice too. None of them, balanced, is smaller than what bisection()
// reports on the twisted shapes podsim ships (each doubles the plain torus).
TEST(MetricsTest, TwistedBisectionIsTheLeastLinearCut) {
  struct Case {
    std::vector<testing::Dim> dims;
    std::vector<config::TwistSpec> twists;
    uint64_t plain_links;
  };
  const Case cases[] = {
      {{{4, true}, {8, true}}, {{0, 1, 4}}, 8},
      {{{4, true}, {4, true}, {8, true}}, {{0, 2, 4}, {1, 2, 4}}, 32},
      {{{4, true}, {8, true}, {8, true}}, {{0, 1, 4}, {0, 2, 4}}, 64},
  };
  for (const auto& c : cases) {
    auto spec = torus_spec(c.dims, 50);
    EXPECT_EQ(bisection(Pod(spec))->links, c.plain_links);
    spec.torus.twists = c.twists;
    const Pod pod(spec);
    const ReferenceTorus ref(spec);
    const uint64_t reported = bisection(pod)->links;
    EXPECT_EQ(reported, 2 * c.plain_links);
    const size_t dims = c.dims.size();
    uint64_t least = UINT64_MAX;
    for (const uint32_t n : {2u, 4u, 8u}) {
      std::vector<uint32_t> s(dims, 0);
      for (bool more = true; more;) {
        std::vector<bool> side_a(ref.chip_count());
        uint32_t size_a = 0;
        for (uint32_t chip = 0; chip < ref.chip_count(); ++chip) {
          uint32_t phase = 0;
          for (size_t d = 0; d < dims; ++d)
            phase += s[d] * ref.coords(chip)[d];
          side_a[chip] = phase % n < n / 2;
          size_a += side_a[chip] ? 1 : 0;
        }
        if (2 * size_a == ref.chip_count()) {
          uint64_t crossing = 0;
          for (const Link& l : pod.links())
            crossing += side_a[l.src] && !side_a[l.dst] ? 1 : 0;
          least = std::min(least, crossing);
        }
        size_t d = 0;  // next s in [0, n)^dims
        while (d < dims && ++s[d] == n)
          s[d++] = 0;
        more = d < dims;
      }
    }
    EXPECT_EQ(reported, least);
  }
}

TEST(MetricsTest, SliceCutWhenTheDcnIsTheBottleneck) {
  // Two 4x4 slices: each torus cut crosses 8 links per slice (800 GB/s in
  // all); the DCN cut is 16 chips x 6.25 GB/s = 100 GB/s.
  const auto two =
      bisection(Pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 6.25)));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->dim, kSliceDim);
  EXPECT_EQ(two->links, 16u);
  EXPECT_EQ(two->bandwidth, gbps(100));
  // Three slices: one slice's 16 up links against two slices' 32 down links.
  const auto three =
      bisection(Pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 3, 6.25)));
  EXPECT_EQ(three->links, 16u);
  EXPECT_EQ(three->bandwidth, gbps(100));
  // A fast DCN leaves the torus cut the bottleneck.
  const auto fast =
      bisection(Pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 100)));
  EXPECT_EQ(fast->dim, 0u);
  EXPECT_EQ(fast->links, 16u);
}

}  // namespace
}  // namespace podsim::topo
