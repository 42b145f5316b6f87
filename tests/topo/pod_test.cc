// The pod graph: numbering, links, neighbours, twists, failed links, DCN.
#include "topo/pod.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "topo/pod_graph.h"
#include "torus_fixture.h"

namespace podsim::topo {
namespace {

using testing::Dim;
using testing::ReferenceTorus;
using testing::torus_spec;

TEST(PodTest, LinkCountsMatchHandCounts) {
  for (const auto& s : testing::standard_shapes()) {
    const Pod pod(torus_spec(s.dims));
    EXPECT_EQ(pod.links().size(), s.directed_links) << s.label;
    EXPECT_EQ(boost::num_edges(pod.graph()), s.directed_links) << s.label;
    EXPECT_EQ(boost::num_vertices(pod.graph()), pod.chip_count()) << s.label;
    EXPECT_FALSE(pod.has_dcn());
  }
}

TEST(PodTest, ChipIdsAreDimensionZeroFastestAndRoundTrip) {
  const Pod pod(torus_spec({{2, false}, {3, true}, {4, true}}));
  EXPECT_EQ(pod.chip_count(), 24u);
  const std::vector<uint32_t> c{1, 2, 3};
  EXPECT_EQ(pod.chip_at(0, c), 1u + 2u * 2 + 3u * 6);
  for (const auto& s : testing::standard_shapes()) {
    const Pod p(torus_spec(s.dims));
    const ReferenceTorus ref(p.spec());
    for (ChipId chip = 0; chip < p.chip_count(); ++chip) {
      const auto coords = p.coords(chip);
      EXPECT_EQ(coords, ref.coords(chip)) << s.label << " chip " << chip;
      EXPECT_EQ(p.chip_at(p.slice_of(chip), coords), chip) << s.label;
      for (uint32_t d = 0; d < p.dim_count(); ++d)
        EXPECT_EQ(p.coord(chip, d), coords[d]);
    }
  }
}

TEST(PodTest, ChipAtRejectsBadCoordinates) {
  const Pod pod(torus_spec({{4, true}, {4, true}}));
  const std::vector<uint32_t> outside{4, 0};
  const std::vector<uint32_t> short_coords{1};
  const std::vector<uint32_t> ok{1, 1};
  EXPECT_THROW(pod.chip_at(0, outside), std::out_of_range);
  EXPECT_THROW(pod.chip_at(0, short_coords), std::out_of_range);
  EXPECT_THROW(pod.chip_at(1, ok), std::out_of_range);
}

TEST(PodTest, EveryLinkJoinsReferenceNeighbours) {
  for (const auto& s : testing::standard_shapes()) {
    const Pod pod(torus_spec(s.dims));
    const ReferenceTorus ref(pod.spec());
    for (ChipId chip = 0; chip < pod.chip_count(); ++chip) {
      for (uint32_t d = 0; d < pod.dim_count(); ++d) {
        for (const int dir : {+1, -1}) {
          const int64_t expected = ref.neighbour(chip, d, dir);
          const auto n = pod.neighbour(chip, d, dir);
          const auto id = pod.link_from(chip, d, dir);
          ASSERT_EQ(n.has_value(), expected >= 0) << s.label << " chip " << chip;
          ASSERT_EQ(id.has_value(), n.has_value());
          if (!n)
            continue;
          EXPECT_EQ(*n, expected);
          const Link& l = pod.link(*id);
          EXPECT_EQ(l.src, chip);
          EXPECT_EQ(l.dst, *n);
          EXPECT_EQ(l.kind, LinkKind::kIci);
          EXPECT_EQ(l.dim, d);
          EXPECT_EQ(l.direction, dir);
          const uint32_t c = pod.coord(chip, d);
          EXPECT_EQ(l.wrap, dir > 0 ? c == s.dims[d].size - 1 : c == 0);
          EXPECT_EQ(l.bandwidth, sim::Bandwidth::from_gbps(50));
          EXPECT_EQ(l.latency, sim::Time::us(1));
        }
      }
    }
  }
}

TEST(PodTest, OutLinksAndGraphEdgesAgreeWithLinkTable) {
  const Pod pod(torus_spec({{8, false}, {16, true}}));
  size_t seen = 0;
  for (VertexId v = 0; v < pod.vertex_count(); ++v) {
    const auto out = pod.out_links(v);
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(pod.link(out[i]).src, v);
      if (i > 0) {
        EXPECT_LT(out[i - 1], out[i]);
      }
    }
    std::vector<LinkId> from_graph;
    for (auto [e, end] = boost::out_edges(v, pod.graph()); e != end; ++e) {
      from_graph.push_back(pod.graph()[*e].link);
      EXPECT_EQ(boost::target(*e, pod.graph()), pod.link(pod.graph()[*e].link).dst);
    }
    EXPECT_EQ(from_graph, std::vector<LinkId>(out.begin(), out.end()));
    seen += out.size();
  }
  EXPECT_EQ(seen, pod.links().size());
}

// Neighbour count of every chip, tallied: {count -> chips}.
std::map<int, int> neighbour_histogram(const Pod& pod) {
  std::map<int, int> histogram;
  for (ChipId chip = 0; chip < pod.chip_count(); ++chip) {
    int n = 0;
    for (uint32_t d = 0; d < pod.dim_count(); ++d) {
      for (const int dir : {+1, -1})
        n += pod.neighbour(chip, d, dir).has_value() ? 1 : 0;
    }
    ++histogram[n];
  }
  return histogram;
}

TEST(PodTest, NeighbourCountsInteriorEdgeCorner) {
  // 4x4 mesh: 4 corners with 2, 8 edge chips with 3, 4 interior with 4.
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{4, false}, {4, false}}))),
            (std::map<int, int>{{2, 4}, {3, 8}, {4, 4}}));
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{4, true}, {4, true}}))),
            (std::map<int, int>{{4, 16}}));
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{8, false}}))),
            (std::map<int, int>{{1, 2}, {2, 6}}));
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{8, true}}))), (std::map<int, int>{{2, 8}}));
  // 8x16, wrap on 16 only: the two ends of the 8-line lose one link.
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{8, false}, {16, true}}))),
            (std::map<int, int>{{3, 32}, {4, 96}}));
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{4, true}, {4, true}, {4, true}}))),
            (std::map<int, int>{{6, 64}}));
  // 4x4x4 mesh: 8 corners (3), 24 edge chips (4), 24 face chips (5), 8 inside (6).
  EXPECT_EQ(neighbour_histogram(Pod(torus_spec({{4, false}, {4, false}, {4, false}}))),
            (std::map<int, int>{{3, 8}, {4, 24}, {5, 24}, {6, 8}}));
}

TEST(PodTest, RingWrapsAndLineEnds) {
  const Pod ring(torus_spec({{8, true}}));
  EXPECT_EQ(ring.neighbour(7, 0, +1), ChipId{0});
  EXPECT_EQ(ring.neighbour(0, 0, -1), ChipId{7});
  EXPECT_EQ(ring.neighbour(3, 0, +1), ChipId{4});
  const Pod line(torus_spec({{8, false}}));
  EXPECT_FALSE(line.neighbour(7, 0, +1));
  EXPECT_FALSE(line.neighbour(0, 0, -1));
  EXPECT_EQ(line.neighbour(0, 0, +1), ChipId{1});
  // A dimension of size 1 has no links; one of size 2 without wrap has one each way.
  const Pod pair(torus_spec({{1, false}, {2, false}}));
  EXPECT_FALSE(pair.neighbour(0, 0, +1));
  EXPECT_EQ(pair.neighbour(0, 1, +1), ChipId{1});
  EXPECT_EQ(pair.links().size(), 2u);
}

config::PodSpec twisted_4x4x8() {
  // x and y wraps shift along z by 4, as TPU v4 twists k x k x 2k slices.
  auto spec = torus_spec({{4, true}, {4, true}, {8, true}});
  spec.torus.twists = {{0, 2, 4}, {1, 2, 4}};
  return spec;
}

TEST(PodTest, TwistedWrapShiftsAlongTheTwistDimension) {
  const Pod pod(twisted_4x4x8());
  const std::vector<uint32_t> from{3, 1, 6};
  const std::vector<uint32_t> to{0, 1, 2};  // z: (6 + 4) mod 8
  EXPECT_EQ(pod.neighbour(pod.chip_at(0, from), 0, +1), pod.chip_at(0, to));
  EXPECT_EQ(pod.neighbour(pod.chip_at(0, to), 0, -1), pod.chip_at(0, from));
  // Interior links and the untwisted z wrap are unchanged.
  const std::vector<uint32_t> z_end{2, 2, 7};
  const std::vector<uint32_t> z_start{2, 2, 0};
  EXPECT_EQ(pod.neighbour(pod.chip_at(0, z_end), 2, +1), pod.chip_at(0, z_start));
  // Every chip keeps 6 distinct neighbours, and every link has its reverse.
  const ReferenceTorus ref(pod.spec());
  std::set<std::pair<VertexId, VertexId>> edges;
  for (const Link& l : pod.links()) {
    edges.insert({l.src, l.dst});
    EXPECT_EQ(static_cast<int64_t>(l.dst), ref.neighbour(l.src, l.dim, l.direction));
  }
  EXPECT_EQ(edges.size(), 6u * 128);
  for (const auto& [a, b] : edges)
    EXPECT_TRUE(edges.count({b, a})) << a << "->" << b;
}

TEST(PodTest, OneWrapShiftingTwoDimensions) {
  // k x 2k x 2k (k = 4): the x wrap shifts y and z by 4 each.
  auto spec = torus_spec({{4, true}, {8, true}, {8, true}});
  spec.torus.twists = {{0, 1, 4}, {0, 2, 4}};
  const Pod pod(spec);
  const std::vector<uint32_t> from{3, 5, 2};
  const std::vector<uint32_t> to{0, 1, 6};  // y: (5 + 4) mod 8, z: (2 + 4) mod 8
  EXPECT_EQ(pod.neighbour(pod.chip_at(0, from), 0, +1), pod.chip_at(0, to));
  EXPECT_EQ(pod.neighbour(pod.chip_at(0, to), 0, -1), pod.chip_at(0, from));
  const ReferenceTorus ref(spec);
  std::set<std::pair<VertexId, VertexId>> edges;
  for (const Link& l : pod.links()) {
    edges.insert({l.src, l.dst});
    EXPECT_EQ(static_cast<int64_t>(l.dst), ref.neighbour(l.src, l.dim, l.direction));
    if (l.dim == 0) {
      EXPECT_EQ(l.wrap, pod.coord(l.src, 0) == (l.direction > 0 ? 3u : 0u));
    }
  }
  EXPECT_EQ(edges.size(), 6u * 256);
  for (const auto& [a, b] : edges)
    EXPECT_TRUE(edges.count({b, a})) << a << "->" << b;
}

TEST(PodTest, FailedLinkRemovesBothDirections) {
  const auto spec = testing::with_failed_link(torus_spec({{4, true}, {4, true}}), {3, 1}, 0, +1);
  const Pod pod(spec);
  EXPECT_EQ(pod.links().size(), 64u - 2);
  const ChipId a = pod.chip_at(0, std::vector<uint32_t>{3, 1});
  const ChipId b = pod.chip_at(0, std::vector<uint32_t>{0, 1});
  EXPECT_FALSE(pod.link_from(a, 0, +1));
  EXPECT_FALSE(pod.link_from(b, 0, -1));
  EXPECT_TRUE(pod.link_from(a, 0, -1));
  EXPECT_TRUE(pod.link_from(b, 0, +1));
}

TEST(PodTest, TwoSlicesShareOneDcnVertex) {
  const Pod pod(testing::with_slices(torus_spec({{4, true}, {4, true}}), 2, 6.25));
  EXPECT_EQ(pod.chip_count(), 32u);
  EXPECT_EQ(pod.slice_count(), 2u);
  ASSERT_TRUE(pod.has_dcn());
  EXPECT_EQ(pod.dcn_switch(), 32u);
  EXPECT_EQ(pod.vertex_count(), 33u);
  EXPECT_EQ(pod.links().size(), 2u * 64 + 2u * 32);
  EXPECT_EQ(pod.out_links(pod.dcn_switch()).size(), 32u);
  const ChipId chip = pod.chip_at(1, std::vector<uint32_t>{2, 3});
  EXPECT_EQ(chip, 16u + 2 + 3 * 4);
  EXPECT_EQ(pod.slice_of(chip), 1u);
  const Link& up = pod.link(pod.dcn_up(chip));
  const Link& down = pod.link(pod.dcn_down(chip));
  EXPECT_EQ(up.src, chip);
  EXPECT_EQ(up.dst, pod.dcn_switch());
  EXPECT_EQ(up.kind, LinkKind::kDcnUp);
  EXPECT_EQ(down.kind, LinkKind::kDcnDown);
  EXPECT_EQ(down.src, pod.dcn_switch());
  EXPECT_EQ(down.dst, chip);
  EXPECT_EQ(up.bandwidth, sim::Bandwidth::from_gbps(6.25));
  EXPECT_EQ(up.latency, sim::Time::us(10));  // DCN latency charged once, on the way up
  EXPECT_EQ(down.latency, sim::Time::zero());
  // ICI links stay within their slice.
  for (const Link& l : pod.links()) {
    if (l.kind == LinkKind::kIci) {
      EXPECT_EQ(pod.slice_of(l.src), pod.slice_of(l.dst));
    }
  }
}

TEST(PodTest, RejectsStructurallyBrokenSpecs) {
  auto line = torus_spec({{4, false}});
  EXPECT_THROW(Pod(testing::with_failed_link(line, {3}, 0, +1)), std::invalid_argument);
  EXPECT_THROW(Pod(testing::with_failed_link(line, {4}, 0, -1)), std::invalid_argument);
  EXPECT_THROW(Pod(testing::with_failed_link(line, {1}, 1, +1)), std::invalid_argument);
  auto untwistable = torus_spec({{4, false}, {4, true}});
  untwistable.torus.twists = {{0, 1, 2}};
  EXPECT_THROW(Pod{untwistable}, std::invalid_argument);
  auto self_twist = torus_spec({{4, true}, {4, true}});
  self_twist.torus.twists = {{0, 0, 2}};
  EXPECT_THROW(Pod{self_twist}, std::invalid_argument);
  auto no_dcn = torus_spec({{4, true}});
  no_dcn.slices = 2;
  EXPECT_THROW(Pod{no_dcn}, std::invalid_argument);
  EXPECT_THROW(Pod(torus_spec({{2, true}})), std::invalid_argument);
  EXPECT_THROW(Pod(torus_spec({{0, false}})), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::topo
