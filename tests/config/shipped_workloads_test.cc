// Every file in workloads/ names its topology in a "# topology: PATH" header
// comment (PATH relative to the source tree) and loads against it; the
// examples have the contents their names and docs promise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

std::filesystem::path workloads_dir() {
  return testing::source_dir() / "workloads";
}

using Loaded = testing::ShippedWorkload;
using testing::topology_header;

Loaded load_example(const std::string& name) {
  return testing::load_shipped_workload(name);
}

const CollectiveSpec& collective(const Loaded& l, size_t i) {
  return std::get<CollectiveSpec>(l.workload.operations.at(i).op);
}

TEST(ShippedWorkloadsTest, EveryFileHasTheHeadersAndLoadsAgainstItsTopology) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(workloads_dir())) {
    SCOPED_TRACE(entry.path().string());
    // sweeps/: tests/config/shipped_sweeps_test.cc; serve/: tests/fleet/serve_loader_test.cc;
    // hlo/ (XLA HLO programs): tests/hlo_import/counts_test.cc and mirror_test.cc
    if (entry.is_directory()) {
      EXPECT_THAT(entry.path().filename().string(), ::testing::AnyOf("sweeps", "serve", "hlo"));
      continue;
    }
    ++files;
    EXPECT_EQ(entry.path().extension(), ".textproto");
    const std::string text = read_file_to_string(entry.path());
    EXPECT_EQ(text.rfind("# proto-file: podsim/workload.proto\n"
                         "# proto-message: podsim.Workload\n",
                         0),
              0u);
    EXPECT_EQ(sniff_file_kind(entry.path()), FileKind::kWorkload);
    const Loaded l = load_example(entry.path().filename().string());
    EXPECT_EQ(l.workload.name + ".textproto", entry.path().filename().string());
    EXPECT_FALSE(l.workload.description.empty());
    // Exactly one form.
    EXPECT_NE(l.workload.operations.empty(), !l.workload.serving.has_value());
  }
  EXPECT_GE(files, 15u);
}

TEST(ShippedWorkloadsTest, AllReduceOfOneGibOverAV5ePod) {
  const Loaded l = load_example("allreduce-1gib-v5e-16x16.textproto");
  EXPECT_EQ(l.pod.name, "tpu-v5e-16x16");
  EXPECT_EQ(l.workload.mesh, (std::vector<MeshAxisDecl>{{"x", {0}}, {"y", {1}}}));
  ASSERT_EQ(l.workload.operations.size(), 1u);
  EXPECT_EQ(collective(l, 0).kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(collective(l, 0).bytes, uint64_t{1} << 30);
  EXPECT_EQ(collective(l, 0).axes, (std::vector<std::string>{"x", "y"}));
}

TEST(ShippedWorkloadsTest, AllGatherOverTheRingThenTheLine) {
  const Loaded l = load_example("allgather-v5e-8x16.textproto");
  EXPECT_EQ(l.pod.name, "tpu-v5e-8x16");
  ASSERT_EQ(l.workload.operations.size(), 2u);
  // The first is over the wrapped 16-chip axis, the second over the 8-chip
  // line, after the first, with the same bytes.
  const auto axis_dim = [&](const std::string& axis) {
    for (const MeshAxisDecl& a : l.workload.mesh) {
      if (a.name == axis)
        return l.pod.torus.dims.at(a.dims.at(0));
    }
    ADD_FAILURE() << "no axis " << axis;
    return DimensionSpec{};
  };
  ASSERT_EQ(collective(l, 0).axes.size(), 1u);
  ASSERT_EQ(collective(l, 1).axes.size(), 1u);
  const DimensionSpec first = axis_dim(collective(l, 0).axes[0]);
  const DimensionSpec second = axis_dim(collective(l, 1).axes[0]);
  EXPECT_EQ(first.size, 16u);
  EXPECT_TRUE(first.wraparound);
  EXPECT_EQ(second.size, 8u);
  EXPECT_FALSE(second.wraparound);
  EXPECT_EQ(l.workload.operations[1].after, (std::vector<size_t>{0}));
  EXPECT_EQ(collective(l, 0).kind, CollectiveKind::kAllGather);
  EXPECT_EQ(collective(l, 1).kind, CollectiveKind::kAllGather);
  EXPECT_EQ(collective(l, 0).bytes, collective(l, 1).bytes);
}

TEST(ShippedWorkloadsTest, AllToAllOverOneAxisOfATwistedV5p) {
  const Loaded l = load_example("alltoall-v5p-8x16x16.textproto");
  EXPECT_EQ(l.pod.name, "tpu-v5p-8x16x16-twisted");
  ASSERT_EQ(l.workload.operations.size(), 1u);
  EXPECT_EQ(collective(l, 0).kind, CollectiveKind::kAllToAll);
  EXPECT_EQ(collective(l, 0).axes.size(), 1u);
  EXPECT_EQ(collective(l, 0).bytes % (16 * 16), 0u);
}

TEST(ShippedWorkloadsTest, AllReduceAcrossTwoSlices) {
  const Loaded l = load_example("allreduce-2slice-dcn.textproto");
  EXPECT_EQ(l.pod.slices, 2u);
  EXPECT_EQ(l.workload.mesh,
            (std::vector<MeshAxisDecl>{{"x", {0}}, {"y", {1}}, {"dcn", {kSliceDimIndex}}}));
  EXPECT_EQ(collective(l, 0).kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(collective(l, 0).bytes, 256u << 20);
  EXPECT_EQ(collective(l, 0).axes, (std::vector<std::string>{"x", "y", "dcn"}));
}

TEST(ShippedWorkloadsTest, TourHasEveryKindTwoConcurrentAndAChain) {
  const Loaded l = load_example("collectives-tour-v5e-4x4.textproto");
  EXPECT_EQ(l.pod.chip_count(), 16u);
  std::map<CollectiveKind, int> kinds;
  size_t roots = 0;  // operations that start at time zero
  for (size_t i = 0; i < l.workload.operations.size(); ++i) {
    ++kinds[collective(l, i).kind];
    roots += l.workload.operations[i].after.empty() ? 1 : 0;
  }
  EXPECT_EQ(kinds.size(), 7u);  // every kind, send included
  EXPECT_EQ(roots, 2u);
}

TEST(ShippedWorkloadsTest, TopologyHeaderIsRead) {
  const testing::TempDir dir;
  EXPECT_EQ(topology_header(dir.write("a",
                                      "# proto-message: podsim.Workload\n"
                                      "# topology: topologies/v5e-4x4.textproto\n")),
            "topologies/v5e-4x4.textproto");
  EXPECT_EQ(topology_header(dir.write("b", "name: \"x\"\n# topology: t\n")), std::nullopt);
  EXPECT_EQ(topology_header(dir.write("c", "#topology: t\n")), std::nullopt);  // the exact form
}

}  // namespace
}  // namespace podsim::config
