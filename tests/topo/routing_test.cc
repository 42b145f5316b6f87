// Routing: dimension-ordered routes on healthy tori, the BFS fallback around
// failed links, unreachable chips, and routes across slices.
#include "topo/routing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::expect_walk;
using testing::ReferenceTorus;
using testing::torus_spec;

// The (dim, direction) steps DOR should take on a plain torus, worked out from
// coordinates alone: dimension by dimension, the shorter way, + on a tie.
std::vector<std::pair<uint32_t, int>> expected_steps(const config::PodSpec& spec,
                                                     const std::vector<uint32_t>& from,
                                                     const std::vector<uint32_t>& to) {
  std::vector<std::pair<uint32_t, int>> steps;
  for (uint32_t d = 0; d < from.size(); ++d) {
    const int64_t n = spec.torus.dims[d].size;
    int64_t delta = static_cast<int64_t>(to[d]) - from[d];
    if (spec.torus.dims[d].wraparound) {
      const int64_t up = ((delta % n) + n) % n;
      delta = up <= n - up ? up : up - n;
    }
    for (int64_t i = 0; i < std::abs(delta); ++i)
      steps.emplace_back(d, delta > 0 ? +1 : -1);
  }
  return steps;
}

TEST(RoutingTest, DimensionOrderedRoutesOnEveryShape) {
  for (const auto& s : testing::standard_shapes()) {
    const Pod pod(torus_spec(s.dims));
    const ReferenceTorus ref(pod.spec());
    for (ChipId src = 0; src < pod.chip_count(); ++src) {
      const std::vector<int64_t> dist = ref.distances_from(src);
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        const std::vector<LinkId> path = route(pod, src, dst);
        expect_walk(pod, src, dst, path);
        std::vector<std::pair<uint32_t, int>> steps;
        for (const LinkId id : path)
          steps.emplace_back(pod.link(id).dim, pod.link(id).direction);
        ASSERT_EQ(steps, expected_steps(pod.spec(), ref.coords(src), ref.coords(dst)))
            << s.label << " " << src << "->" << dst;
        EXPECT_EQ(static_cast<int64_t>(path.size()), dist[dst]) << s.label;
        EXPECT_EQ(hops(pod, src, dst), path.size()) << s.label;
      }
    }
  }
}

TEST(RoutingTest, TieOnEvenRingGoesPlus) {
  const Pod ring(torus_spec({{8, true}}));
  for (const auto& [src, dst] : {std::pair<ChipId, ChipId>{0, 4}, {4, 0}, {6, 2}}) {
    const auto path = route(ring, src, dst);
    ASSERT_EQ(path.size(), 4u);
    for (const LinkId id : path)
      EXPECT_EQ(ring.link(id).direction, +1);
  }
  // Not a tie: 0 -> 5 is 3 hops going -, through the wrap link.
  const auto path = route(ring, 0, 5);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(ring.link(path[0]).direction, -1);
  EXPECT_TRUE(ring.link(path[0]).wrap);
}

TEST(RoutingTest, RouteIntoAppendsAndSelfRouteIsEmpty) {
  const Pod pod(torus_spec({{4, true}, {4, true}}));
  std::vector<LinkId> buffer{12345};
  route_into(pod, 0, 5, buffer);
  ASSERT_EQ(buffer.size(), 3u);
  EXPECT_EQ(buffer[0], 12345u);
  EXPECT_EQ(std::vector<LinkId>(buffer.begin() + 1, buffer.end()), route(pod, 0, 5));
  EXPECT_TRUE(route(pod, 7, 7).empty());
  EXPECT_EQ(hops(pod, 7, 7), 0u);
  EXPECT_THROW(route(pod, 0, 16), std::out_of_range);
  EXPECT_THROW(hops(pod, 16, 0), std::out_of_range);
}

TEST(RoutingTest, ShortestRouteMatchesReferenceDistances) {
  const Pod pod(torus_spec({{3, true}, {4, false}, {5, true}}));
  const ReferenceTorus ref(pod.spec());
  for (ChipId src = 0; src < pod.chip_count(); src += 7) {
    const auto dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto path = shortest_route(pod, src, dst);
      expect_walk(pod, src, dst, path);
      EXPECT_EQ(static_cast<int64_t>(path.size()), dist[dst]);
    }
  }
}

TEST(RoutingTest, FailedLinkForcesADetour) {
  // 4x4 mesh, link (0,0)-(1,0) down: 0 -> 1 must go round through row 1.
  const auto spec = testing::with_failed_link(torus_spec({{4, false}, {4, false}}), {0, 0}, 0, +1);
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  const auto path = route(pod, 0, 1);
  expect_walk(pod, 0, 1, path);
  EXPECT_EQ(path.size(), 3u);
  // Every pair: a walk over existing links only, as short as the damaged graph allows.
  for (ChipId src = 0; src < pod.chip_count(); ++src) {
    const auto dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto p = route(pod, src, dst);
      expect_walk(pod, src, dst, p);
      EXPECT_EQ(static_cast<int64_t>(p.size()), dist[dst]) << src << "->" << dst;
      EXPECT_EQ(hops(pod, src, dst), p.size());
    }
  }
}

TEST(RoutingTest, RoutesFromOneChipAreRoutesOneByOne) {
  // Two failed links on a 4x4x4 torus: some walks meet them and take the
  // fewest-hops route, the others walk; both ways round a tie.
  auto spec =
      testing::with_failed_link(torus_spec({{4, true}, {4, true}, {4, true}}), {0, 0, 0}, 1, +1);
  spec = testing::with_failed_link(spec, {2, 1, 3}, 0, -1);
  const Pod pod(spec);
  std::vector<ChipId> all(pod.chip_count());
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    all[c] = c;
  }
  for (const TieBreak tie : {TieBreak::kPlus, TieBreak::kMinus}) {
    for (ChipId src = 0; src < pod.chip_count(); ++src) {
      std::vector<std::vector<LinkId>> got(pod.chip_count());
      visit_routes_from(pod, src, all, tie, [&](ChipId dst, LinkId id) { got[dst].push_back(id); });
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        EXPECT_EQ(got[dst], route(pod, src, dst, tie)) << src << "->" << dst;
      }
    }
  }
}

TEST(RoutingTest, FailedWrapLinkOnRingGoesTheLongWay) {
  const Pod ring(testing::with_failed_link(torus_spec({{8, true}}), {7}, 0, +1));
  const auto path = route(ring, 7, 0);
  expect_walk(ring, 7, 0, path);
  ASSERT_EQ(path.size(), 7u);
  for (const LinkId id : path)
    EXPECT_EQ(ring.link(id).direction, -1);
}

TEST(RoutingTest, PartitionedSliceThrows) {
  const Pod line(testing::with_failed_link(torus_spec({{8, false}}), {3}, 0, +1));
  EXPECT_THROW(route(line, 0, 7), NoRoute);
  EXPECT_THROW(hops(line, 6, 1), NoRoute);
  EXPECT_THROW(shortest_route(line, 3, 4), NoRoute);
  EXPECT_EQ(route(line, 0, 3).size(), 3u);
  std::vector<LinkId> buffer{1, 2};
  EXPECT_THROW(route_into(line, 0, 7, buffer), NoRoute);
  EXPECT_EQ(buffer, (std::vector<LinkId>{1, 2}));
}

TEST(RoutingTest, AcrossSlicesGoesThroughTheDcn) {
  const Pod pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 6.25));
  const ChipId a = 5;
  const ChipId b = 16 + 10;
  EXPECT_EQ(route(pod, a, b), (std::vector<LinkId>{pod.dcn_up(a), pod.dcn_down(b)}));
  EXPECT_EQ(shortest_route(pod, a, b), route(pod, a, b));
  EXPECT_EQ(hops(pod, a, b), 2u);
  expect_walk(pod, a, b, route(pod, a, b));
  // Within a slice, ICI only, even though the DCN would be fewer hops.
  const auto inside = route(pod, 16, 16 + 10);
  EXPECT_EQ(inside.size(), 4u);
  for (const LinkId id : inside)
    EXPECT_EQ(pod.link(id).kind, LinkKind::kIci);
}

TEST(RoutingTest, TwistedTorusRoutesAreValidWalks) {
  auto spec = torus_spec({{4, true}, {4, true}, {8, true}});
  spec.torus.twists = {{0, 2, 4}, {1, 2, 4}};
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  for (ChipId src = 0; src < pod.chip_count(); src += 5) {
    const auto dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto path = route(pod, src, dst);
      expect_walk(pod, src, dst, path);
      EXPECT_GE(static_cast<int64_t>(path.size()), dist[dst]);
      EXPECT_EQ(hops(pod, src, dst), path.size());
      EXPECT_EQ(static_cast<int64_t>(shortest_route(pod, src, dst).size()), dist[dst]);
    }
  }
}

TEST(RoutingTest, TwistIntoAnEarlierDimensionFallsBackToAValidRoute) {
  // The z wrap shifts x, which DOR has already routed: route() must still arrive.
  auto spec = torus_spec({{4, true}, {4, true}, {8, true}});
  spec.torus.twists = {{2, 0, 1}};
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  for (ChipId src = 0; src < pod.chip_count(); src += 3) {
    const auto dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto path = route(pod, src, dst);
      expect_walk(pod, src, dst, path);
      EXPECT_GE(static_cast<int64_t>(path.size()), dist[dst]);
    }
  }
}

}  // namespace
}  // namespace podsim::topo
