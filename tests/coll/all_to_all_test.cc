// The all-to-all's segments (what ALGORITHM_AUTO runs over several
// dimensions) must load every link exactly as the direct exchange does --
// every block along its own shortest dimension-ordered route, N^2 transfers
// -- on rings, lines, unequal tori and twisted tori, while issuing far fewer
// transfers; and the two must take about the same time.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "coll_fixture.h"
#include "config/topology_loader.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveKind;

struct Shape {
  const char* label;
  std::vector<Dim> dims;
  std::vector<config::TwistSpec> twists;
  const char* file = nullptr;  // a shipped topology instead
};

void PrintTo(const Shape& s, std::ostream* os) {
  *os << s.label;
}

class AllToAllSegments : public ::testing::TestWithParam<Shape> {
 protected:
  static config::PodSpec spec() {
    if (GetParam().file != nullptr) {
      return config::load_topology_file(GetParam().file);
    }
    config::PodSpec s = pod_spec(GetParam().dims);
    s.torus.twists = GetParam().twists;
    return s;
  }
};

TEST_P(AllToAllSegments, LoadEveryLinkAsTheDirectExchange) {
  const topo::Pod pod(spec());
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    dims.push_back(d);
  }
  const topo::DeviceMesh mesh(pod, {{"all", dims}});
  const uint64_t n = pod.chip_count();
  auto c = collective(CollectiveKind::kAllToAll, n * n * kMiB, {"all"});  // even blocks
  const Outcome segments = run(pod, mesh, c);
  c.algorithm = CollectiveAlgorithm::kDirect;
  const Outcome direct = run(pod, mesh, c);
  ASSERT_TRUE(segments.done && direct.done);
  ASSERT_EQ(segments.link_bytes.size(), direct.link_bytes.size());
  for (size_t l = 0; l < direct.link_bytes.size(); ++l) {
    EXPECT_EQ(segments.link_bytes[l], direct.link_bytes[l]) << "link " << l;
  }
  EXPECT_LT(segments.transfers_started, direct.transfers_started);
  // Bandwidth-bound (1 MiB blocks): the busiest link decides both; their
  // latencies differ by at most a route's hops.
  EXPECT_NEAR(segments.seconds, direct.seconds, 0.02 * direct.seconds);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AllToAllSegments,
    ::testing::Values(Shape{"ring_8x2", {{8, true}, {2, false}}, {}},
                      Shape{"torus_4x4", {{4, true}, {4, true}}, {}},
                      Shape{"mesh_4x4", {{4, false}, {4, false}}, {}},
                      Shape{"torus_4x8", {{4, true}, {8, true}}, {}},
                      Shape{"mixed_8x4", {{8, false}, {4, true}}, {}},
                      Shape{"torus_4x4x4", {{4, true}, {4, true}, {4, true}}, {}},
                      Shape{"twisted_4x8", {{4, true}, {8, true}}, {{0, 1, 4}}},
                      Shape{"v5p_4x4x8_twisted", {}, {}, "topologies/v5p-4x4x8-twisted.textproto"}),
    [](const auto& param) { return std::string(param.param.label); });

// Groups that span part of a twisted slice: z alone (the dimension the
// twists shift; its shortest routes may go round an x or y cycle: segments)
// and the x-y plane (both twisted, their shift dimension left out: a route
// that crosses the x and the y wrap shifts z by 4 + 4 = 8, back where it
// was, so some routes leave the plane's lines and the exchange runs direct).
TEST(AllToAllSegments, SubgroupsOfATwistedSliceLoadLinksAsTheDirectExchange) {
  const topo::Pod pod(config::load_topology_file("topologies/v5p-4x4x8-twisted.textproto"));
  const topo::DeviceMesh mesh(pod, {{"xy", {0, 1}}, {"z", {2}}});
  for (const std::string axis : {"z", "xy"}) {
    const uint64_t n = mesh.axis_size(axis);
    auto c = collective(CollectiveKind::kAllToAll, n * n * kMiB, {axis});
    const Outcome segments = run(pod, mesh, c);
    const std::string schedule = lower(pod, mesh, c).schedule;
    EXPECT_EQ(schedule.find("direct") == std::string::npos, axis == "z")
        << axis << ": " << schedule;
    c.algorithm = CollectiveAlgorithm::kDirect;
    const Outcome direct = run(pod, mesh, c);
    ASSERT_TRUE(segments.done && direct.done);
    EXPECT_EQ(segments.link_bytes, direct.link_bytes) << axis;
    EXPECT_NEAR(segments.seconds, direct.seconds, 0.02 * direct.seconds) << axis;
  }
}

}  // namespace
}  // namespace podsim::coll::testing
