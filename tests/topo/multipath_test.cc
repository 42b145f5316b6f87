// Point-to-point multipath: counts, link-disjointness, valid walks, lengths,
// on plain, twisted and damaged tori and across slices.
#include "topo/multipath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "topo/routing.h"
#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::expect_walk;
using testing::ReferenceTorus;
using testing::torus_spec;

using Routes = std::vector<std::vector<LinkId>>;

// No link appears twice across all the routes.
void expect_disjoint(const Routes& routes, ChipId src, ChipId dst) {
  std::set<LinkId> seen;
  for (const auto& r : routes) {
    for (const LinkId id : r)
      EXPECT_TRUE(seen.insert(id).second) << "link " << id << " twice, " << src << "->" << dst;
  }
}

// Expected count on a healthy plain torus, from coordinates alone: k routes
// when the chips differ in k >= 2 dimensions, 2 when they differ in one
// wraparound dimension exactly half way round, else 1.
size_t expected_count(const Pod& pod, ChipId src, ChipId dst) {
  uint32_t differ = 0;
  bool antipodal = false;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const uint32_t n = pod.dim_size(d);
    const uint32_t up = (pod.coord(dst, d) + n - pod.coord(src, d)) % n;
    if (up == 0)
      continue;
    ++differ;
    antipodal = pod.wraparound(d) && 2 * up == n;
  }
  if (differ >= 2)
    return differ;
  return differ == 1 && antipodal ? 2 : 1;
}

TEST(MultipathTest, SelfAndAcrossSlices) {
  const Pod pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 10));
  EXPECT_EQ(disjoint_routes(pod, 5, 5), Routes{{}});
  EXPECT_EQ(disjoint_routes(pod, 5, 16 + 10), (Routes{{pod.dcn_up(5), pod.dcn_down(26)}}));
  EXPECT_THROW(disjoint_routes(pod, 0, 32), std::out_of_range);
}

TEST(MultipathTest, CountsOnA3dTorus) {
  const Pod pod(torus_spec({{4, true}, {4, true}, {4, true}}));
  const ReferenceTorus ref(pod.spec());
  const ChipId o = 0;
  EXPECT_EQ(disjoint_routes(pod, o, ref.id(0, {1, 0, 0})).size(), 1u);
  EXPECT_EQ(disjoint_routes(pod, o, ref.id(0, {2, 0, 0})).size(), 2u);  // both ways round
  EXPECT_EQ(disjoint_routes(pod, o, ref.id(0, {1, 3, 0})).size(), 2u);
  EXPECT_EQ(disjoint_routes(pod, o, ref.id(0, {2, 2, 0})).size(), 2u);  // rotations, not 4
  const Routes three = disjoint_routes(pod, o, ref.id(0, {1, 1, 1}));
  ASSERT_EQ(three.size(), 3u);
  // Rotations xyz, yzx, zxy: each leaves on a different port and arrives on
  // a different port.
  std::set<uint32_t> first;
  std::set<uint32_t> last;
  for (const auto& r : three) {
    first.insert(pod.link(r.front()).dim);
    last.insert(pod.link(r.back()).dim);
  }
  EXPECT_EQ(first, (std::set<uint32_t>{0, 1, 2}));
  EXPECT_EQ(last, (std::set<uint32_t>{0, 1, 2}));
  EXPECT_EQ(three[0], route(pod, o, ref.id(0, {1, 1, 1})));
}

TEST(MultipathTest, RingOppositeGoesBothWays) {
  const Pod ring(torus_spec({{8, true}}));
  const Routes two = disjoint_routes(ring, 0, 4);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], route(ring, 0, 4, TieBreak::kPlus));
  EXPECT_EQ(two[1], route(ring, 0, 4, TieBreak::kMinus));
  // An odd ring has no opposite chip; a line has no second way.
  EXPECT_EQ(disjoint_routes(Pod(torus_spec({{7, true}})), 0, 3).size(), 1u);
  EXPECT_EQ(disjoint_routes(Pod(torus_spec({{8, false}})), 0, 4).size(), 1u);
}

TEST(MultipathTest, EveryPairOnPlainShapesIsDisjointAndDorLong) {
  for (const auto& s : testing::standard_shapes()) {
    SCOPED_TRACE(s.label);
    const Pod pod(torus_spec(s.dims));
    for (ChipId src = 0; src < pod.chip_count(); ++src) {
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        const Routes routes = disjoint_routes(pod, src, dst);
        ASSERT_EQ(routes.size(), expected_count(pod, src, dst)) << src << "->" << dst;
        EXPECT_EQ(routes[0], route(pod, src, dst));
        expect_disjoint(routes, src, dst);
        for (const auto& r : routes) {
          expect_walk(pod, src, dst, r);
          EXPECT_EQ(r.size(), hops(pod, src, dst)) << src << "->" << dst;
        }
      }
    }
  }
}

TEST(MultipathTest, TwistedToriKeepValidDisjointShortestRoutes) {
  std::vector<config::PodSpec> specs;
  specs.push_back(torus_spec({{4, true}, {8, true}}));
  specs.back().torus.twists = {{0, 1, 4}};
  specs.push_back(torus_spec({{4, true}, {4, true}, {8, true}}));
  specs.back().torus.twists = {{0, 2, 4}, {1, 2, 4}};
  specs.push_back(torus_spec({{4, true}, {8, true}, {8, true}}));
  specs.back().torus.twists = {{0, 1, 4}, {0, 2, 4}};
  for (const auto& spec : specs) {
    const Pod pod(spec);
    const ReferenceTorus ref(spec);
    size_t multi = 0;
    for (ChipId src = 0; src < pod.chip_count(); src += 3) {
      const auto dist = ref.distances_from(src);
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        const Routes routes = disjoint_routes(pod, src, dst);
        ASSERT_GE(routes.size(), 1u);
        EXPECT_LE(routes.size(), std::max<size_t>(2, pod.dim_count()));
        EXPECT_EQ(routes[0], route(pod, src, dst));
        expect_disjoint(routes, src, dst);
        for (const auto& r : routes) {
          expect_walk(pod, src, dst, r);
          EXPECT_EQ(static_cast<int64_t>(r.size()), dist[dst]) << src << "->" << dst;
        }
        multi += routes.size() > 1 ? 1 : 0;
      }
    }
    EXPECT_GT(multi, 0u);
  }
}

TEST(MultipathTest, FailedLinksDropRotationsThatMeetThem) {
  // 4x4x4 torus, (0,0,0) -> (1,1,1): the x-first rotation starts on the
  // failed +x link of chip 0 and is dropped; the other two remain.
  const auto spec =
      testing::with_failed_link(torus_spec({{4, true}, {4, true}, {4, true}}), {0, 0, 0}, 0, +1);
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  const ChipId dst = ref.id(0, {1, 1, 1});
  const Routes two = disjoint_routes(pod, 0, dst);
  ASSERT_EQ(two.size(), 2u);
  for (const auto& r : two) {
    expect_walk(pod, 0, dst, r);
    EXPECT_NE(pod.link(r.front()).dim, 0u);
  }
  expect_disjoint(two, 0, dst);
  // Every pair: valid, disjoint, never more than without the failure.
  const Pod healthy(torus_spec({{4, true}, {4, true}, {4, true}}));
  for (ChipId src = 0; src < pod.chip_count(); ++src) {
    for (ChipId d = 0; d < pod.chip_count(); ++d) {
      const Routes routes = disjoint_routes(pod, src, d);
      ASSERT_GE(routes.size(), 1u);
      EXPECT_LE(routes.size(), disjoint_routes(healthy, src, d).size());
      expect_disjoint(routes, src, d);
      for (const auto& r : routes)
        expect_walk(pod, src, d, r);
    }
  }
}

TEST(MultipathTest, NothingLeftFallsBackToShortestRoute) {
  // 4x4 torus, (0,0) -> (2,0): both ways round x start on failed links.
  auto spec = testing::with_failed_link(torus_spec({{4, true}, {4, true}}), {0, 0}, 0, +1);
  spec = testing::with_failed_link(spec, {0, 0}, 0, -1);
  const Pod pod(spec);
  const Routes routes = disjoint_routes(pod, 0, 2);
  ASSERT_EQ(routes.size(), 1u);
  EXPECT_EQ(routes[0], shortest_route(pod, 0, 2));
  EXPECT_EQ(routes[0].size(), 4u);  // out along y, 2 along x, back along y
}

}  // namespace
}  // namespace podsim::topo
