// Device meshes: named axes over torus dimensions and the groups they give.
#include "topo/mesh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::torus_spec;
using Names = std::vector<std::string>;
using Groups = std::vector<std::vector<ChipId>>;

bool adjacent(const Pod& pod, ChipId a, ChipId b) {
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    for (const int dir : {+1, -1}) {
      if (pod.neighbour(a, d, dir) == b)
        return true;
    }
  }
  return false;
}

TEST(MeshTest, OneDimensionAxesGiveRowsAndColumns) {
  const Pod pod(torus_spec({{4, true}, {4, true}}));
  const DeviceMesh mesh(pod, {{"x", {0}}, {"y", {1}}});
  EXPECT_EQ(mesh.axis_size("x"), 4u);
  // Chip ids run x fastest, so an x group is 4 consecutive ids.
  EXPECT_EQ(mesh.groups(Names{"x"}),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
  EXPECT_EQ(mesh.groups(Names{"y"}),
            (Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
  EXPECT_EQ(mesh.group_of(9, Names{"y"}), (std::vector<ChipId>{1, 5, 9, 13}));
  EXPECT_EQ(mesh.index_in_group(9, Names{"y"}), 2u);
  // No axis: every chip alone.
  EXPECT_EQ(mesh.groups(Names{}).size(), 16u);
}

TEST(MeshTest, AxisOverTwoDimensionsIsASnake) {
  const Pod pod(torus_spec({{4, false}, {4, false}}));
  const DeviceMesh mesh(pod, {{"xy", {0, 1}}});
  EXPECT_EQ(mesh.axis_size("xy"), 16u);
  const Groups groups = mesh.groups(Names{"xy"});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (std::vector<ChipId>{0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12}));
  // Listing y first makes y the fast dimension.
  const DeviceMesh yx(pod, {{"yx", {1, 0}}});
  EXPECT_EQ(yx.groups(Names{"yx"})[0],
            (std::vector<ChipId>{0, 4, 8, 12, 13, 9, 5, 1, 2, 6, 10, 14, 15, 11, 7, 3}));
}

TEST(MeshTest, SnakeMembersAreNeighboursAndIndicesInvert) {
  const Pod pod(torus_spec({{4, true}, {3, false}, {5, true}, {2, false}}));
  const DeviceMesh mesh(pod, {{"a", {2, 0}}, {"b", {1}}, {"c", {3}}});
  for (const Names& axes : {Names{"a"}, Names{"a", "b"}, Names{"b", "a", "c"}, Names{"c"}}) {
    const Groups groups = mesh.groups(axes);
    std::set<ChipId> seen;
    size_t expected_size = 1;
    for (const auto& name : axes)
      expected_size *= mesh.axis_size(name);
    ASSERT_EQ(groups.size() * expected_size, pod.chip_count());
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& group = groups[g];
      ASSERT_EQ(group.size(), expected_size);
      if (g > 0) {
        EXPECT_LT(groups[g - 1][0], group[0]);
      }
      for (size_t i = 0; i < group.size(); ++i) {
        EXPECT_TRUE(seen.insert(group[i]).second) << "chip in two groups";
        if (i > 0) {
          EXPECT_TRUE(adjacent(pod, group[i - 1], group[i])) << group[i - 1] << "," << group[i];
        }
        EXPECT_EQ(mesh.index_in_group(group[i], axes), i);
        EXPECT_EQ(mesh.group_of(group[i], axes), group);
        // Chips of a group differ only along the axes' dimensions (here, not dim 3 unless "c").
        if (std::find(axes.begin(), axes.end(), "c") == axes.end()) {
          EXPECT_EQ(pod.coord(group[i], 3), pod.coord(group[0], 3));
        }
      }
    }
  }
}

TEST(MeshTest, UncoveredDimensionsSeparateGroups) {
  const Pod pod(torus_spec({{4, true}, {4, true}, {4, true}}));
  const DeviceMesh mesh(pod, {{"model", {0}}});
  const Groups groups = mesh.groups(Names{"model"});
  ASSERT_EQ(groups.size(), 16u);
  EXPECT_EQ(groups[5], (std::vector<ChipId>{20, 21, 22, 23}));
}

TEST(MeshTest, AxisAcrossSlices) {
  const Pod pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 6.25));
  const DeviceMesh mesh(pod, {{"data", {kSliceDim}}, {"model", {0, 1}}});
  EXPECT_EQ(mesh.axis_size("data"), 2u);
  const Groups data = mesh.groups(Names{"data"});
  ASSERT_EQ(data.size(), 16u);
  for (ChipId c = 0; c < 16; ++c)
    EXPECT_EQ(data[c], (std::vector<ChipId>{c, c + 16}));
  EXPECT_EQ(mesh.groups(Names{"model"}).size(), 2u);
  EXPECT_EQ(mesh.groups(Names{"model", "data"}).size(), 1u);
  EXPECT_EQ(mesh.index_in_group(16 + 3, Names{"data"}), 1u);
  // An axis may mix a torus dimension and the slices.
  const DeviceMesh mixed(pod, {{"xs", {0, kSliceDim}}});
  EXPECT_EQ(mixed.group_of(4, Names{"xs"}), (std::vector<ChipId>{4, 5, 6, 7, 23, 22, 21, 20}));
}

TEST(MeshTest, InvalidMeshesAreRejected) {
  const Pod pod(torus_spec({{4, true}, {4, true}}));
  using Axes = std::vector<MeshAxisSpec>;
  EXPECT_THROW(DeviceMesh(pod, Axes{{"", {0}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"x", {0}}, {"x", {1}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"x", {}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"x", {2}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"x", {0}}, {"y", {1, 0}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"x", {0, 0}}}), std::invalid_argument);
  EXPECT_THROW(DeviceMesh(pod, Axes{{"s", {kSliceDim}}, {"t", {kSliceDim}}}),
               std::invalid_argument);
  try {
    DeviceMesh(pod, Axes{{"x", {0}}, {"y", {0}}});
    ADD_FAILURE() << "shared dimension accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
  }
  const DeviceMesh mesh(pod, {{"x", {0}}, {"y", {1}}});
  EXPECT_THROW(mesh.groups(Names{"z"}), std::invalid_argument);
  EXPECT_THROW(mesh.groups(Names{"x", "x"}), std::invalid_argument);
  EXPECT_THROW(mesh.axis_size("z"), std::invalid_argument);
  EXPECT_THROW(mesh.index_in_group(0, Names{"q"}), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::topo
