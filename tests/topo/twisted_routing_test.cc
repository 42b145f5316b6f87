// Routing on twisted tori (shortest on every pair, tie rule), the old plain
// DOR rule kept on untwisted pods, and walks along one dimension.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
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

config::PodSpec twisted(const std::vector<testing::Dim>& dims,
                        std::vector<config::TwistSpec> twists) {
  auto spec = torus_spec(dims);
  spec.torus.twists = std::move(twists);
  return spec;
}

struct TwistedCase {
  std::string label;
  config::PodSpec spec;
};

// The three small twisted tori of the brief, each twist half its shift dimension.
std::vector<TwistedCase> small_twisted_tori() {
  return {
      {"4x8, x wrap +4 along y", twisted({{4, true}, {8, true}}, {{0, 1, 4}})},
      {"4x4x8, x and y wraps +4 along z",
       twisted({{4, true}, {4, true}, {8, true}}, {{0, 2, 4}, {1, 2, 4}})},
      {"4x8x8, x wrap +4 along y and z",
       twisted({{4, true}, {8, true}, {8, true}}, {{0, 1, 4}, {0, 2, 4}})},
  };
}

// Position of a link's dimension in the walk order: twisted dimensions first.
uint32_t rank(const config::PodSpec& spec, uint32_t dim) {
  bool is_twisted = false;
  for (const auto& t : spec.torus.twists)
    is_twisted = is_twisted || t.dim == dim;
  return is_twisted ? dim : 100 + dim;
}

TEST(TwistedRoutingTest, EveryPairIsAShortestWalkBothWaysOfATie) {
  for (const auto& c : small_twisted_tori()) {
    SCOPED_TRACE(c.label);
    const Pod pod(c.spec);
    const ReferenceTorus ref(c.spec);
    uint32_t ties = 0;
    for (ChipId src = 0; src < pod.chip_count(); ++src) {
      const std::vector<int64_t> dist = ref.distances_from(src);
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        const auto plus = route(pod, src, dst, TieBreak::kPlus);
        const auto minus = route(pod, src, dst, TieBreak::kMinus);
        expect_walk(pod, src, dst, plus);
        expect_walk(pod, src, dst, minus);
        ASSERT_EQ(static_cast<int64_t>(plus.size()), dist[dst]) << src << "->" << dst;
        ASSERT_EQ(static_cast<int64_t>(minus.size()), dist[dst]) << src << "->" << dst;
        EXPECT_EQ(hops(pod, src, dst), plus.size());
        EXPECT_EQ(route_has_tie(pod, src, dst), plus != minus) << src << "->" << dst;
        ties += plus != minus ? 1 : 0;
        // Dimension-ordered: twisted dimensions first, each dimension once.
        for (size_t i = 1; i < plus.size(); ++i) {
          EXPECT_LE(rank(c.spec, pod.link(plus[i - 1]).dim), rank(c.spec, pod.link(plus[i]).dim));
        }
      }
    }
    EXPECT_GT(ties, 0u);
  }
}

TEST(TwistedRoutingTest, ShippedShapeSampledAgainstBfs) {
  // v5p 8x16x16 as shipped: the x wrap shifted 8 along y and along z.
  const auto spec = twisted({{8, true}, {16, true}, {16, true}}, {{0, 1, 8}, {0, 2, 8}});
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  for (ChipId src = 0; src < pod.chip_count(); src += 97) {
    const std::vector<int64_t> dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto path = route(pod, src, dst);
      expect_walk(pod, src, dst, path);
      ASSERT_EQ(static_cast<int64_t>(path.size()), dist[dst]) << src << "->" << dst;
    }
  }
  // The ring step (7,0,0) -> (0,0,0): not through the twisted wrap (it lands
  // at (0,8,8)) but 7 hops back along x.
  const ChipId from = ref.id(0, {7, 0, 0});
  const auto step = route(pod, from, ref.id(0, {0, 0, 0}));
  ASSERT_EQ(step.size(), 7u);
  for (const LinkId id : step) {
    EXPECT_EQ(pod.link(id).dim, 0u);
    EXPECT_EQ(pod.link(id).direction, -1);
  }
  // (7,0,0) -> (0,8,8) is the twisted wrap link itself.
  const auto wrap = route(pod, from, ref.id(0, {0, 8, 8}));
  ASSERT_EQ(wrap.size(), 1u);
  EXPECT_TRUE(pod.link(wrap[0]).wrap);
}

TEST(TwistedRoutingTest, FullRoundOfATwistedDimensionWhenItIsShorter) {
  // 4x4x8, x wrap +4 along z: (0,0,0) -> (0,0,4) is 4 hops along z or 4 hops
  // round x (landing 4 along z); a tie, kPlus and kMinus take the two.
  const auto spec = twisted({{4, true}, {4, true}, {8, true}}, {{0, 2, 4}});
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  const ChipId src = 0;
  const ChipId dst = ref.id(0, {0, 0, 4});
  const auto plus = route(pod, src, dst, TieBreak::kPlus);
  const auto minus = route(pod, src, dst, TieBreak::kMinus);
  ASSERT_EQ(plus.size(), 4u);
  ASSERT_EQ(minus.size(), 4u);
  EXPECT_TRUE(route_has_tie(pod, src, dst));
  // Canonical order: x by m descending, so kPlus goes round x (+), kMinus
  // goes round x the other way (-): m = +1 first, m = -1 last.
  EXPECT_EQ(pod.link(plus[0]).dim, 0u);
  EXPECT_EQ(pod.link(plus[0]).direction, +1);
  EXPECT_EQ(pod.link(minus[0]).dim, 0u);
  EXPECT_EQ(pod.link(minus[0]).direction, -1);
  // (0,0,0) -> (0,0,3): 3 along z beats 4 round x plus 1.
  const auto near = route(pod, src, ref.id(0, {0, 0, 3}));
  ASSERT_EQ(near.size(), 3u);
  EXPECT_EQ(pod.link(near[0]).dim, 2u);
}

TEST(TwistedRoutingTest, FailedLinksStillFallBackToShortestRoute) {
  auto spec = twisted({{4, true}, {4, true}, {8, true}}, {{0, 2, 4}, {1, 2, 4}});
  spec = testing::with_failed_link(spec, {3, 0, 0}, 0, +1);  // a twisted wrap link
  spec = testing::with_failed_link(spec, {1, 1, 1}, 2, -1);
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  for (ChipId src = 0; src < pod.chip_count(); src += 3) {
    const std::vector<int64_t> dist = ref.distances_from(src);
    for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      const auto plus = route(pod, src, dst, TieBreak::kPlus);
      const auto minus = route(pod, src, dst, TieBreak::kMinus);
      expect_walk(pod, src, dst, plus);
      EXPECT_EQ(static_cast<int64_t>(plus.size()), dist[dst]) << src << "->" << dst;
      EXPECT_EQ(hops(pod, src, dst), plus.size());
      EXPECT_EQ(route_has_tie(pod, src, dst), plus != minus) << src << "->" << dst;
    }
  }
}

// The rule before twisted routing, copied: dimensions in index order, each
// the shorter way, `plus` on an exact tie; nullopt where it met a missing link
// or did not arrive (route() then falls back to shortest_route()).
std::optional<std::vector<LinkId>> old_rule(const Pod& pod, ChipId src, ChipId dst, bool plus) {
  std::vector<LinkId> out;
  ChipId at = src;
  for (uint32_t dim = 0; dim < pod.dim_count(); ++dim) {
    const uint32_t size = pod.dim_size(dim);
    const uint32_t from = pod.coord(at, dim);
    const uint32_t to = pod.coord(dst, dim);
    if (from == to)
      continue;
    int direction = to > from ? +1 : -1;
    uint32_t steps = to > from ? to - from : from - to;
    if (pod.wraparound(dim)) {
      const uint32_t up = (to + size - from) % size;
      const uint32_t down = size - up;
      direction = up < down ? +1 : up > down ? -1 : (plus ? +1 : -1);
      steps = std::min(up, down);
    }
    for (; steps > 0; --steps) {
      const auto id = pod.link_from(at, dim, direction);
      if (!id)
        return std::nullopt;
      out.push_back(*id);
      at = pod.link(*id).dst;
    }
  }
  if (at != dst)
    return std::nullopt;
  return out;
}

TEST(TwistedRoutingTest, UntwistedPodsRouteExactlyAsBefore) {
  std::vector<std::pair<std::string, config::PodSpec>> pods;
  for (const auto& s : testing::standard_shapes())
    pods.emplace_back(s.label, torus_spec(s.dims));
  pods.emplace_back("torus4x6 failed",
                    testing::with_failed_link(torus_spec({{4, true}, {6, true}}), {1, 2}, 1, +1));
  pods.emplace_back("mesh4x4 x2 slices",
                    testing::with_slices(torus_spec({{4, false}, {4, true}}), 2, 10));
  for (const auto& [label, spec] : pods) {
    SCOPED_TRACE(label);
    const Pod pod(spec);
    for (ChipId src = 0; src < pod.chip_count(); ++src) {
      for (ChipId dst = 0; dst < pod.chip_count(); ++dst) {
        if (pod.slice_of(src) != pod.slice_of(dst) || src == dst)
          continue;
        bool antipodal = false;
        for (uint32_t d = 0; d < pod.dim_count(); ++d) {
          const uint32_t n = pod.dim_size(d);
          const uint32_t up = (pod.coord(dst, d) + n - pod.coord(src, d)) % n;
          antipodal = antipodal || (pod.wraparound(d) && up != 0 && 2 * up == n);
        }
        for (const bool plus : {true, false}) {
          const auto tie = plus ? TieBreak::kPlus : TieBreak::kMinus;
          const auto old = old_rule(pod, src, dst, plus);
          ASSERT_EQ(route(pod, src, dst, tie), old ? *old : shortest_route(pod, src, dst))
              << src << "->" << dst;
        }
        if (!pod.has_failed_links()) {
          EXPECT_EQ(route_has_tie(pod, src, dst), antipodal) << src << "->" << dst;
        }
      }
    }
  }
}

TEST(WalkAlongTest, RingsLinesAndMisses) {
  const Pod ring(torus_spec({{8, true}}));
  EXPECT_EQ(walk_along(ring, 0, 3, 0, +1)->size(), 3u);
  const auto back = walk_along(ring, 0, 3, 0, -1);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 5u);
  expect_walk(ring, 0, 3, *back);
  EXPECT_TRUE(walk_along(ring, 5, 5, 0, +1)->empty());
  const Pod line(torus_spec({{8, false}}));
  EXPECT_FALSE(walk_along(line, 5, 2, 0, +1));  // off the end of the line
  EXPECT_EQ(walk_along(line, 5, 2, 0, -1)->size(), 3u);
  const Pod grid(torus_spec({{4, true}, {4, true}}));
  EXPECT_FALSE(walk_along(grid, 0, 5, 0, +1));  // not on the x ring of chip 0
  EXPECT_EQ(walk_along(grid, 1, 13, 1, -1)->size(), 1u);
  const Pod failed(testing::with_failed_link(torus_spec({{8, true}}), {2}, 0, +1));
  EXPECT_FALSE(walk_along(failed, 0, 4, 0, +1));
  EXPECT_EQ(walk_along(failed, 0, 4, 0, -1)->size(), 4u);
  const Pod sliced(testing::with_slices(torus_spec({{4, true}}), 2, 10));
  EXPECT_FALSE(walk_along(sliced, 0, 5, 0, +1));
  EXPECT_THROW(walk_along(ring, 0, 8, 0, +1), std::out_of_range);
  EXPECT_THROW(walk_along(ring, 0, 1, 1, +1), std::out_of_range);
  EXPECT_THROW(walk_along(ring, 0, 1, 0, 0), std::invalid_argument);
}

TEST(WalkAlongTest, TwistedCycleClosesThroughTheTwistedWrap) {
  const auto spec = twisted({{8, true}, {16, true}, {16, true}}, {{0, 1, 8}, {0, 2, 8}});
  const Pod pod(spec);
  const ReferenceTorus ref(spec);
  // (7,3,5) +x: (0,11,13), ..., (7,11,13), (0,3,5) after 9 hops.
  const ChipId src = ref.id(0, {7, 3, 5});
  const auto first = walk_along(pod, src, ref.id(0, {0, 11, 13}), 0, +1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), 1u);
  const auto around = walk_along(pod, src, ref.id(0, {0, 3, 5}), 0, +1);
  ASSERT_TRUE(around);
  EXPECT_EQ(around->size(), 9u);
  expect_walk(pod, src, ref.id(0, {0, 3, 5}), *around);
  // From (0,3,5) the cycle is back after 16 hops: (6,3,5) is 15 hops on.
  const ChipId origin = ref.id(0, {0, 3, 5});
  EXPECT_EQ(walk_along(pod, origin, ref.id(0, {7, 3, 5}), 0, +1)->size(), 7u);
  EXPECT_EQ(walk_along(pod, origin, ref.id(0, {6, 11, 13}), 0, +1)->size(), 14u);
  EXPECT_EQ(walk_along(pod, origin, ref.id(0, {7, 3, 5}), 0, -1)->size(), 9u);
  // Off the cycle: (0,3,6) is never reached.
  EXPECT_FALSE(walk_along(pod, origin, ref.id(0, {0, 3, 6}), 0, +1));
}

TEST(CycleLengthTest, PlainTwistedAndLines) {
  const Pod plain(torus_spec({{8, true}, {4, false}, {1, false}}));
  EXPECT_EQ(cycle_length(plain, 3, 0), 8u);
  EXPECT_EQ(cycle_length(plain, 3, 1), 0u);
  EXPECT_EQ(cycle_length(plain, 3, 2), 0u);
  EXPECT_THROW(cycle_length(plain, 3, 3), std::out_of_range);
  EXPECT_THROW(cycle_length(plain, 32, 0), std::out_of_range);
  const std::vector<std::pair<config::PodSpec, std::vector<uint32_t>>> cases = {
      // k x 2k x 2k: order 2 along x.
      {twisted({{8, true}, {16, true}, {16, true}}, {{0, 1, 8}, {0, 2, 8}}), {16, 16, 16}},
      // k x k x 2k: x and y each order 2.
      {twisted({{4, true}, {4, true}, {8, true}}, {{0, 2, 4}, {1, 2, 4}}), {8, 8, 8}},
      // Offsets 2 of 8 (order 4) and 3 of 9 (order 3): lcm 12 rounds of 3.
      {twisted({{3, true}, {8, true}, {9, true}}, {{0, 1, 2}, {0, 2, 3}}), {36, 8, 9}},
      // Two twists along one dimension add up: 1 + 3 = 4 of 8, order 2.
      {twisted({{3, true}, {8, true}}, {{0, 1, 1}, {0, 1, 3}}), {6, 8}},
  };
  for (const auto& [spec, expected] : cases) {
    const Pod pod(spec);
    for (uint32_t d = 0; d < pod.dim_count(); ++d) {
      // Every chip: the +d neighbour walk first returns after cycle_length hops.
      for (ChipId chip = 0; chip < pod.chip_count(); ++chip) {
        const uint32_t length = cycle_length(pod, chip, d);
        ASSERT_EQ(length, expected[d]) << "dim " << d;
        ChipId at = chip;
        for (uint32_t i = 1; i <= length; ++i) {
          at = *pod.neighbour(at, d, +1);
          ASSERT_EQ(at == chip, i == length) << "dim " << d << " chip " << chip;
        }
      }
    }
  }
}

}  // namespace
}  // namespace podsim::topo
