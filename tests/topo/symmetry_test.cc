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

TEST(SymmetryClasses, NoneForATrivialGroupOrSeveralSlices) {
  const Pod pod(torus_spec({{4, true}}));
  EXPECT_FALSE(SymmetryClasses::make(pod, std::vector<Translation>{}));
  EXPECT_FALSE(SymmetryClasses::make(pod, std::vector<Translation>{{0, 4}}));
  const Pod sliced(testing::with_slices(torus_spec({{4, true}}), 2, 100));
  EXPECT_FALSE(SymmetryClasses::make(sliced, std::vector<Translation>{{0, 1}}));
}

}  // namespace symmetry_test
}  // namespace podsim::topo
