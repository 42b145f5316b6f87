// Which live chips reach which (topo/components.h), and the diameter over
// live chips (issue 27): dead chips and failed links can cut a slice apart,
// a cut is named by its components, and the diameter is what the routes
// around the faults take.
#include "topo/components.h"

#include <gtest/gtest.h>

#include <vector>

#include "topo/metrics.h"
#include "topo/pod.h"
#include "topo/routing.h"
#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::torus_spec;
using testing::with_failed_link;

config::PodSpec with_dead(config::PodSpec spec, const std::vector<std::vector<uint32_t>>& chips) {
  for (const auto& c : chips)
    spec.dead_chips.push_back({0, c});
  return spec;
}

ChipId at(const Pod& pod, uint32_t x, uint32_t y) {
  return pod.chip_at(0, std::vector<uint32_t>{x, y});
}

TEST(Components, AHealthyPodIsOneComponentPerSlice) {
  const Pod pod(testing::with_slices(torus_spec({{4, false}, {4, false}}), 2, 10));
  const Components c = ici_components(pod);
  EXPECT_TRUE(c.connected());
  EXPECT_EQ(c.size, (std::vector<uint32_t>{16, 16}));
  EXPECT_TRUE(c.reachable(0, 31));  // across slices, over DCN
}

TEST(Components, TwoDeadChipsCutA2x2InTwo) {
  // (0,1) and (1,0) dead: (0,0) and (1,1) have no live neighbour in common.
  const Pod pod(with_dead(torus_spec({{2, false}, {2, false}}), {{0, 1}, {1, 0}}));
  const Components c = ici_components(pod);
  EXPECT_FALSE(c.connected());
  EXPECT_EQ(c.per_slice[0], 2u);
  EXPECT_FALSE(c.reachable(at(pod, 0, 0), at(pod, 1, 1)));
  EXPECT_FALSE(c.reachable(at(pod, 0, 0), at(pod, 0, 1)));  // dead
  EXPECT_EQ(describe_components(pod, c, 0), "{(0,0)} and {(1,1)}");
  const std::vector<ChipId> pair{at(pod, 0, 0), at(pod, 1, 1)};
  try {
    require_reachable(pod, c, pair, "operation 'move' (send)");
    FAIL() << "the cut was not found";
  } catch (const Partitioned& e) {
    EXPECT_STREQ(e.what(),
                 "operation 'move' (send) needs a route from chip (0,0) to chip (1,1), but dead "
                 "chips and failed links cut the live chips apart into 2 components that cannot "
                 "reach each other: {(0,0)} and {(1,1)}");
  }
}

TEST(Components, FailedLinksIsolateAChipAndBigComponentsAreAbridged) {
  // Both links of (0,0) on a 4x4 without wraparound: 15 chips and 1.
  auto spec = with_failed_link(torus_spec({{4, false}, {4, false}}), {0, 0}, 0, +1);
  spec = with_failed_link(spec, {0, 0}, 1, +1);
  const Pod pod(spec);
  const Components c = ici_components(pod);
  EXPECT_EQ(describe_components(pod, c, 0),
            "{15 chips: (1,0), (2,0), (3,0), (0,1), ...} and {(0,0)}");
  const std::vector<ChipId> far{at(pod, 1, 0), at(pod, 3, 3)};
  EXPECT_NO_THROW(require_reachable(pod, c, far, "a send"));  // the cut is not crossed
  EXPECT_THROW(shortest_route(pod, at(pod, 0, 0), at(pod, 3, 3)), NoRoute);
}

TEST(Diameter, IsOverLiveChipsOrAbsentWhenTheyAreCutApart) {
  // Two live chips that cannot reach each other: no diameter (it said 2).
  EXPECT_FALSE(
      diameter_hops(Pod(with_dead(torus_spec({{2, false}, {2, false}}), {{0, 1}, {1, 0}}))));
  // A wall of three dead chips on a 4x4 line grid: (0,0) to (2,0) goes round
  // by (0,3) and (2,3), 8 hops, and to (3,0) 9, the diameter (the healthy
  // closed form said 6). The routes take exactly these.
  const Pod walled(with_dead(torus_spec({{4, false}, {4, false}}), {{1, 0}, {1, 1}, {1, 2}}));
  EXPECT_EQ(diameter_hops(walled), 9u);
  EXPECT_EQ(hops(walled, at(walled, 0, 0), at(walled, 2, 0)), 8u);
  EXPECT_EQ(route(walled, at(walled, 0, 0), at(walled, 3, 0)).size(), 9u);
  // A dead corner shortens nothing: the farthest live pair is still 6 apart.
  EXPECT_EQ(diameter_hops(Pod(with_dead(torus_spec({{4, false}, {4, false}}), {{0, 0}}))), 6u);
}

}  // namespace
}  // namespace podsim::topo
