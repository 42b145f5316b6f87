// The all-to-all's segments (what ALGORITHM_AUTO runs over several
// dimensions) must load every link exactly as the direct exchange does --
// every block along its own shortest dimension-ordered route, N^2 transfers
// -- on rings, lines, unequal tori and twisted tori, while issuing far fewer
// transfers; and the two must take about the same time.
#include <gtest/gtest.h>

#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "coll_fixture.h"
#include "config/topology_loader.h"
#include "sim/simulation.h"
#include "topo/routing.h"

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

// A slice with a failed link still runs the segments (on a twisted slice
// those of the repaired slice's routes), the segment that meets the failed
// link going round it as one transfer, instead of an N^2 direct exchange
// (every block round the fault on its own route): far fewer transfers,
// every byte delivered. The detours differ, and so do the times, by the
// bound docs/collectives.md states.
struct FaultyShape {
  const char* label;
  config::PodSpec spec;
};

void PrintTo(const FaultyShape& s, std::ostream* os) {
  *os << s.label;
}

class FaultyAllToAll : public ::testing::TestWithParam<FaultyShape> {};

config::PodSpec twisted_4x8() {
  config::PodSpec s = pod_spec({{4, true}, {8, true}});
  s.torus.twists = {{0, 1, 4}};
  return s;
}

TEST_P(FaultyAllToAll, KeepsItsSegmentsAndDetoursThemWithinTheStatedBound) {
  config::PodSpec spec = GetParam().spec;
  std::vector<uint32_t> at(spec.torus.dims.size(), 1);
  spec.failed_links.push_back({0, at, 1, +1});
  const topo::Pod pod(spec);
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    dims.push_back(d);
  }
  const topo::DeviceMesh mesh(pod, {{"all", dims}});
  const uint64_t n = pod.chip_count();
  auto c = collective(CollectiveKind::kAllToAll, n * n * kMiB, {"all"});
  const Outcome segments = run(pod, mesh, c);
  EXPECT_EQ(segments.schedule.find("direct"), std::string::npos) << segments.schedule;
  c.algorithm = CollectiveAlgorithm::kDirect;
  const Outcome direct = run(pod, mesh, c);
  ASSERT_TRUE(segments.done && direct.done);
  EXPECT_EQ(segments.bytes_received, segments.bytes_sent);
  EXPECT_EQ(direct.bytes_received, direct.bytes_sent);
  EXPECT_NEAR(segments.seconds, direct.seconds, 0.35 * direct.seconds)
      << "segments " << segments.seconds << " s, direct " << direct.seconds << " s";
  std::cout << GetParam().label << ": segments " << segments.seconds * 1e6 << " us, direct "
            << direct.seconds * 1e6 << " us\n";
}

INSTANTIATE_TEST_SUITE_P(
    FailedLink, FaultyAllToAll,
    ::testing::Values(FaultyShape{"torus_4x4x4", pod_spec({{4, true}, {4, true}, {4, true}})},
                      FaultyShape{"torus_4x8", pod_spec({{4, true}, {8, true}})},
                      FaultyShape{"twisted_4x8", twisted_4x8()}),
    [](const auto& param) { return std::string(param.param.label); });

// The direct exchange's ties (a block to a chip exactly opposite on an even
// ring goes as two halves) are counted once by lower(); a run of the plan
// must come out exactly as one that works them out itself.
struct PlayedPlan {
  sim::Time end;
  std::vector<uint64_t> link_bytes;
  uint64_t transfers = 0;
};

PlayedPlan play(const topo::Pod& pod, const Plan& plan) {
  net::Options options;
  options.model = net::Model::kFlow;
  auto network = net::make_network(pod, options);
  sim::Simulation sim;
  CollectiveRun run(pod, *network, plan);
  run.start(sim);
  sim.run();
  EXPECT_TRUE(run.done());
  const auto bytes = run.link_bytes();
  return {run.end_time(), std::vector<uint64_t>(bytes.begin(), bytes.end()),
          run.transfers_delivered()};
}

TEST(DirectExchange, TiesCountedByTheLoweringMatchTheRoutes) {
  const std::vector<config::PodSpec> specs = {
      pod_spec({{8, true}}), pod_spec({{6, false}}), pod_spec({{4, true}, {4, true}}),
      pod_spec({{4, true}, {3, false}, {4, true}}),
      config::load_topology_file("topologies/v5p-4x4x8-twisted.textproto")};
  for (const config::PodSpec& spec : specs) {
    const topo::Pod pod(spec);
    const topo::DeviceMesh mesh = one_axis_per_dim(pod);
    std::vector<std::string> axes;
    for (const auto& d : spec.torus.dims)
      axes.push_back(d.name);
    const uint64_t n = pod.chip_count();
    auto c = collective(CollectiveKind::kAllToAll, n * n * kMiB, axes);
    c.algorithm = CollectiveAlgorithm::kDirect;
    const Plan plan = lower(pod, mesh, c);
    ASSERT_EQ(plan.shares.size(), 1u);
    const Phase& ph = plan.shares[0].phases.at(0);
    ASSERT_EQ(ph.pattern, Pattern::kDirect);
    ASSERT_EQ(ph.direct_ties_in.size(), n);
    uint32_t ties = 0;
    for (topo::ChipId a = 0; a < n; ++a) {
      uint32_t in = 0;
      uint32_t out = 0;
      for (topo::ChipId b = 0; b < n; ++b) {
        in += b != a && topo::route_has_tie(pod, b, a) ? 1 : 0;
        out += b != a && topo::route_has_tie(pod, a, b) ? 1 : 0;
      }
      EXPECT_EQ(ph.direct_ties_in[a], in) << spec.name << " chip " << a;
      EXPECT_EQ(ph.direct_ties_out[a], out) << spec.name << " chip " << a;
      ties += out;
    }
    Plan unplanned = plan;
    unplanned.shares[0].phases[0].direct_ties_in.clear();
    unplanned.shares[0].phases[0].direct_ties_out.clear();
    const PlayedPlan a = play(pod, plan);
    const PlayedPlan b = play(pod, unplanned);
    EXPECT_EQ(a.end, b.end) << spec.name;
    EXPECT_EQ(a.link_bytes, b.link_bytes) << spec.name;
    EXPECT_EQ(a.transfers, n * (n - 1) + ties) << spec.name;
    EXPECT_EQ(b.transfers, a.transfers) << spec.name;
  }
}

}  // namespace
}  // namespace podsim::coll::testing
