// Translations of a pod and the classes they generate (topo/symmetry.h):
// which maps are automorphisms (rings and twisted rings, not lines nor pods
// with a failed link), that they follow twists, and that every class has
// the group's order of chips and of links.
#include "topo/symmetry.h"

#include <gtest/gtest.h>

#include <set>

#include "torus_fixture.h"

namespace podsim::topo {
namespace symmetry_test {

using testing::torus_spec;

TEST(Translate, MovesEveryChipOneStepAlongARing) {
  const Pod pod(torus_spec({{4, true}, {3, true}}));
  const auto map = translate(pod, Translation{0, 1});
  ASSERT_TRUE(map);
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    EXPECT_EQ(pod.coord((*map)[c], 0), (pod.coord(c, 0) + 1) % 4);
    EXPECT_EQ(pod.coord((*map)[c], 1), pod.coord(c, 1));
  }
}

TEST(Translate, ManyStepsArePowersOfOne) {
  const Pod pod(torus_spec({{6, true}, {3, true}}));
  const auto one = translate(pod, Translation{0, 1});
  const auto four = translate(pod, Translation{0, 4});
  ASSERT_TRUE(one && four);
  EXPECT_EQ(power(*one, 4), *four);
  EXPECT_EQ(power(*one, 10), *four);  // 10 = 4 mod 6
  EXPECT_EQ(power(*one, 6), power(*one, 0));
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    EXPECT_EQ(power(*one, 0)[c], c);
    EXPECT_EQ(pod.coord((*four)[c], 0), (pod.coord(c, 0) + 4) % 6);
  }
}

TEST(Translate, ThereIsNoneAlongALineOrAcrossAFailedLink) {
  EXPECT_FALSE(translate(Pod(torus_spec({{4, false}, {4, true}})), Translation{0, 1}));
  EXPECT_TRUE(translate(Pod(torus_spec({{4, false}, {4, true}})), Translation{1, 1}));
  const Pod failed(testing::with_failed_link(torus_spec({{4, true}, {4, true}}), {1, 2}, 0, +1));
  EXPECT_FALSE(translate(failed, Translation{0, 1}));
  EXPECT_FALSE(translate(failed, Translation{1, 2}));  // it moves the failed link elsewhere
}

TEST(Translate, FollowsTheTwistedWrap) {
  config::PodSpec spec = torus_spec({{4, true}, {8, true}});
  spec.torus.twists = {{0, 1, 4}};  // x's wrap lands 4 along y
  const Pod pod(spec);
  const auto map = translate(pod, Translation{0, 1});
  ASSERT_TRUE(map);
  const ChipId last = pod.chip_at(0, std::vector<uint32_t>{3, 1});
  EXPECT_EQ((*map)[last], pod.chip_at(0, std::vector<uint32_t>{0, 5}));
}

TEST(SymmetryClasses, EveryClassHasTheGroupsOrderOfChipsAndLinks) {
  const Pod pod(torus_spec({{8, true}, {4, true}, {2, false}}));
  const std::vector<Translation> gens = {{0, 2}, {1, 1}};
  const auto classes = SymmetryClasses::make(pod, gens);
  ASSERT_TRUE(classes);
  EXPECT_EQ(classes->orbit_size(), 16U);  // 4 along x (steps of 2) x 4 along y
  EXPECT_EQ(classes->class_count(), 4U);  // x parity x z
  std::vector<uint32_t> chips(pod.chip_count(), 0);
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    const ChipId r = classes->rep(c);
    EXPECT_LE(r, c);
    EXPECT_EQ(pod.coord(r, 0) % 2, pod.coord(c, 0) % 2);
    EXPECT_EQ(pod.coord(r, 2), pod.coord(c, 2));
    ++chips[r];
  }
  for (const ChipId r : classes->reps()) {
    EXPECT_EQ(chips[r], 16U);
  }
  std::vector<uint32_t> links(pod.links().size(), 0);
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    const Link& a = pod.link(l);
    const Link& b = pod.link(classes->rep_link(l));
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.direction, b.direction);
    EXPECT_EQ(classes->rep(a.src), classes->rep(b.src));
    ++links[classes->rep_link(l)];
  }
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    EXPECT_TRUE(links[l] == 0 || links[l] == 16U);
  }
}

TEST(SymmetryClasses, NoneForATrivialGroup) {
  const Pod pod(torus_spec({{4, true}}));
  EXPECT_FALSE(SymmetryClasses::make(pod, std::vector<Translation>{}));
  EXPECT_FALSE(SymmetryClasses::make(pod, std::vector<Translation>{{0, 4}}));
}

TEST(SymmetryClasses, SeveralSlicesMoveAlikeAndTheDcnSwitchStays) {
  // Two rings of 4 joined by the DCN: x+1 moves both rings; each chip's
  // DCN up and down links go with it.
  const Pod pod(testing::with_slices(torus_spec({{4, true}}), 2, 100));
  const auto classes = SymmetryClasses::make(pod, std::vector<Translation>{{0, 1}});
  ASSERT_TRUE(classes);
  EXPECT_EQ(classes->orbit_size(), 4U);
  EXPECT_EQ(classes->class_count(), 2U);  // one per slice
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    EXPECT_EQ(pod.slice_of(classes->rep(c)), pod.slice_of(c));
  }
  std::vector<uint32_t> members(pod.links().size(), 0);
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    const Link& a = pod.link(l);
    const Link& b = pod.link(classes->rep_link(l));
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.direction, b.direction);
    const ChipId chip = a.kind == LinkKind::kDcnDown ? a.dst : a.src;
    const ChipId rep_chip = b.kind == LinkKind::kDcnDown ? b.dst : b.src;
    EXPECT_EQ(classes->rep(chip), classes->rep(rep_chip)) << l;
    ++members[classes->rep_link(l)];
  }
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    EXPECT_TRUE(members[l] == 0 || members[l] == 4U) << l;
  }
  EXPECT_EQ(classes->rep_link(pod.dcn_up(3)), pod.dcn_up(0));
  EXPECT_EQ(classes->rep_link(pod.dcn_down(6)), pod.dcn_down(4));
}

TEST(SymmetryClasses, WithinARegionTheGroupMovesItsChipsAndFixesTheRest) {
  // 4x4x2 with a failed x link in the plane z = 1: the plane z = 0 is
  // healthy and moves under x+1 and y+1; every chip and link of z = 1, and
  // the z links between the planes (one end moved, one fixed), stay alone.
  const Pod pod(
      testing::with_failed_link(torus_spec({{4, true}, {4, true}, {2, false}}), {1, 2, 1}, 0, +1));
  std::vector<uint8_t> moved(pod.chip_count(), 0);
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    moved[c] = pod.coord(c, 2) == 0 ? 1 : 0;
  }
  const std::vector<Translation> gens = {{0, 1}, {1, 1}};
  EXPECT_FALSE(SymmetryClasses::make(pod, gens));  // no translation of the whole pod
  const auto classes = SymmetryClasses::make_within(pod, gens, moved);
  ASSERT_TRUE(classes);
  EXPECT_TRUE(classes->partial());
  EXPECT_EQ(classes->class_count(), 17U);  // the plane z = 0, and 16 chips alone
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    EXPECT_EQ(classes->rep(c), moved[c] != 0 ? 0U : c);
    EXPECT_EQ(classes->class_size(c), moved[c] != 0 ? 16U : 1U);
  }
  std::vector<uint32_t> members(pod.links().size(), 0);
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    const Link& a = pod.link(l);
    const Link& b = pod.link(classes->rep_link(l));
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.direction, b.direction);
    const bool both_moved = moved[a.src] != 0 && moved[a.dst] != 0;
    if (!both_moved) {
      EXPECT_EQ(classes->rep_link(l), l);
    }
    ++members[classes->rep_link(l)];
  }
  for (LinkId l = 0; l < pod.links().size(); ++l) {
    const Link& a = pod.link(l);
    const bool both_moved = moved[a.src] != 0 && moved[a.dst] != 0;
    EXPECT_TRUE(members[l] == 0 || members[l] == (both_moved ? 16U : 1U)) << l;
  }
  EXPECT_NE(classes->describe(pod).find("within 16 chips: 1 class of 16 chips"), std::string::npos)
      << classes->describe(pod);

  // The region must map onto itself along its own links: not the faulty
  // plane (a failed link), not a region that x+1 leaves.
  std::vector<uint8_t> faulty(pod.chip_count(), 0);
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    faulty[c] = pod.coord(c, 2) == 1 ? 1 : 0;
  }
  EXPECT_FALSE(SymmetryClasses::make_within(pod, gens, faulty));
  std::vector<uint8_t> half = moved;
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    half[c] = moved[c] != 0 && pod.coord(c, 0) < 2 ? 1 : 0;
  }
  EXPECT_FALSE(SymmetryClasses::make_within(pod, gens, half));
  EXPECT_FALSE(SymmetryClasses::make_within(pod, gens, std::vector<uint8_t>(pod.chip_count(), 0)));
}

}  // namespace symmetry_test
}  // namespace podsim::topo
