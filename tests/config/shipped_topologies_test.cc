// Every file in topologies/ loads, has the shape its name promises, and the
// embedded default pod is exactly topologies/v5e-16x16.textproto.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::StartsWith;

struct Expected {
  std::string name;
  uint64_t chips;
  std::vector<uint32_t> sizes;
  std::vector<bool> wraps;
  uint64_t link_bytes_per_s;
};

// Written from the acceptance criteria and Google's published TPU figures
// (cloud.google.com/tpu/docs/v4, v5e, v5p, v6e, tpu7x), not from the files.
const std::map<std::string, Expected>& expected_files() {
  static const std::map<std::string, Expected> kFiles = {
      {"v4-4x4x4.textproto", {"tpu-v4-4x4x4", 64, {4, 4, 4}, {true, true, true}, 45'000'000'000}},
      {"v4-16x16x16.textproto",
       {"tpu-v4-16x16x16", 4096, {16, 16, 16}, {true, true, true}, 45'000'000'000}},
      {"v5e-2x2.textproto", {"tpu-v5e-2x2", 4, {2, 2}, {false, false}, 50'000'000'000}},
      {"v5e-4x4.textproto", {"tpu-v5e-4x4", 16, {4, 4}, {false, false}, 50'000'000'000}},
      {"v5e-8x16.textproto", {"tpu-v5e-8x16", 128, {8, 16}, {false, true}, 50'000'000'000}},
      {"v5e-16x16.textproto", {"tpu-v5e-16x16", 256, {16, 16}, {true, true}, 50'000'000'000}},
      {"v5e-16x16-x2-dcn.textproto",
       {"tpu-v5e-16x16-x2-dcn", 512, {16, 16}, {true, true}, 50'000'000'000}},
      {"v5p-4x4x4.textproto",
       {"tpu-v5p-4x4x4", 64, {4, 4, 4}, {true, true, true}, 100'000'000'000}},
      {"v5p-4x4x8-twisted.textproto",
       {"tpu-v5p-4x4x8-twisted", 128, {4, 4, 8}, {true, true, true}, 100'000'000'000}},
      {"v5p-8x16x16-twisted.textproto",
       {"tpu-v5p-8x16x16-twisted", 2048, {8, 16, 16}, {true, true, true}, 100'000'000'000}},
      {"v5p-16x20x28.textproto",
       {"tpu-v5p-16x20x28", 8960, {16, 20, 28}, {true, true, true}, 100'000'000'000}},
      {"v6e-16x16.textproto", {"tpu-v6e-16x16", 256, {16, 16}, {true, true}, 100'000'000'000}},
      {"v6e-4x4.textproto", {"tpu-v6e-4x4", 16, {4, 4}, {false, false}, 100'000'000'000}},
      {"tpu7x-4x4x4.textproto",
       {"tpu7x-4x4x4", 64, {4, 4, 4}, {true, true, true}, 100'000'000'000}},
  };
  return kFiles;
}

std::filesystem::path topologies_dir() {
  return testing::source_dir() / "topologies";
}

TEST(ShippedTopologiesTest, EveryExpectedFileLoadsWithItsShape) {
  for (const auto& [file, want] : expected_files()) {
    SCOPED_TRACE(file);
    const PodSpec pod = load_topology_file(topologies_dir() / file);
    EXPECT_EQ(pod.name, want.name);
    EXPECT_EQ(pod.chip_count(), want.chips);
    ASSERT_EQ(pod.torus.dims.size(), want.sizes.size());
    for (size_t i = 0; i < want.sizes.size(); ++i) {
      EXPECT_EQ(pod.torus.dims[i].size, want.sizes[i]);
      EXPECT_EQ(pod.torus.dims[i].wraparound, want.wraps[i]);
      EXPECT_EQ(pod.torus.dims[i].link_bandwidth.bytes_per_s(), want.link_bytes_per_s);
      EXPECT_EQ(pod.torus.dims[i].hop_latency, sim::Time::us(1));
    }
  }
}

TEST(ShippedTopologiesTest, EveryFileInTheDirectoryIsKnownAndHasTheSchemaHeader) {
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(topologies_dir())) {
    if (!entry.is_regular_file())
      continue;  // calibration/: profiles, not topologies
    const std::string file = entry.path().filename().string();
    SCOPED_TRACE(file);
    seen.insert(file);
    EXPECT_TRUE(expected_files().count(file)) << "add the new file to this test";
    EXPECT_THAT(read_file_to_string(entry.path()),
                StartsWith("# proto-file: podsim/topology.proto\n"
                           "# proto-message: podsim.Topology\n"));
  }
  EXPECT_EQ(seen.size(), expected_files().size());
}

// The matrix units must account for the published bf16 peak: count x rows x
// columns x 2 FLOP per multiply-accumulate x clock, within 1%.
TEST(ShippedTopologiesTest, MatrixUnitsMatchThePeak) {
  for (const auto& [file, want] : expected_files()) {
    SCOPED_TRACE(file);
    const ChipSpec chip = load_topology_file(topologies_dir() / file).chip;
    const double mxu_peak =
        2.0 * chip.mxu_count * chip.mxu_rows * chip.mxu_columns * chip.mxu_clock_hz;
    EXPECT_NEAR(mxu_peak / chip.peak_bf16_flops, 1.0, 0.01);
  }
}

TEST(ShippedTopologiesTest, PublishedChipFigures) {
  const ChipSpec v5e = load_topology_file(topologies_dir() / "v5e-4x4.textproto").chip;
  EXPECT_DOUBLE_EQ(v5e.peak_bf16_flops, 1.97e14);
  EXPECT_EQ(v5e.hbm_bytes, 16'000'000'000u);
  EXPECT_EQ(v5e.hbm_bandwidth.bytes_per_s(), 819'000'000'000u);
  EXPECT_EQ(v5e.vmem_bytes, 128u << 20);
  EXPECT_EQ(v5e.ici_ports, 4u);
  const ChipSpec v4 = load_topology_file(topologies_dir() / "v4-4x4x4.textproto").chip;
  EXPECT_EQ(v4.hbm_bytes, 32ull << 30);
  EXPECT_EQ(v4.ici_ports, 6u);
  const ChipSpec v5p = load_topology_file(topologies_dir() / "v5p-4x4x4.textproto").chip;
  EXPECT_EQ(v5p.hbm_bytes, 95ull << 30);
  const ChipSpec v6e = load_topology_file(topologies_dir() / "v6e-16x16.textproto").chip;
  EXPECT_EQ(v6e.hbm_bytes, 32'000'000'000u);
  const ChipSpec tpu7x = load_topology_file(topologies_dir() / "tpu7x-4x4x4.textproto").chip;
  EXPECT_EQ(tpu7x.hbm_bytes, 192ull << 30);
  EXPECT_DOUBLE_EQ(tpu7x.peak_fp8_flops, 4.614e15);
}

// The twisted shapes of [GC] with the assumed wiring of the files: each
// short axis's wrap shifted by k along the long axes.
TEST(ShippedTopologiesTest, TwistedV5pSlicesShiftTheLongAxesByK) {
  const PodSpec big = load_topology_file(topologies_dir() / "v5p-8x16x16-twisted.textproto");
  EXPECT_EQ(big.torus.twists, (std::vector<TwistSpec>{{0, 1, 8}, {0, 2, 8}}));  // k x 2k x 2k
  const PodSpec small = load_topology_file(topologies_dir() / "v5p-4x4x8-twisted.textproto");
  EXPECT_EQ(small.torus.twists, (std::vector<TwistSpec>{{0, 2, 4}, {1, 2, 4}}));  // k x k x 2k
  // Same chip as the other v5p files.
  const ChipSpec v5p = load_topology_file(topologies_dir() / "v5p-4x4x4.textproto").chip;
  EXPECT_EQ(big.chip, v5p);
  EXPECT_EQ(small.chip, v5p);
}

TEST(ShippedTopologiesTest, TwoSliceV5eUsesDcn) {
  const PodSpec pod = load_topology_file(topologies_dir() / "v5e-16x16-x2-dcn.textproto");
  EXPECT_EQ(pod.slices, 2u);
  ASSERT_TRUE(pod.dcn.has_value());
  EXPECT_EQ(pod.dcn->bandwidth_per_chip.bytes_per_s(), 3'125'000'000u);
  EXPECT_EQ(pod.dcn->latency, sim::Time::us(10));
}

TEST(DefaultTopologyTest, EqualsTheShippedV5e16x16) {
  PodSpec from_file = load_topology_file(topologies_dir() / "v5e-16x16.textproto");
  const PodSpec embedded = default_topology();
  EXPECT_EQ(embedded.source_file, "<embedded:v5e-16x16>");
  EXPECT_EQ(embedded.name, "tpu-v5e-16x16");
  EXPECT_EQ(embedded.chip_count(), 256u);
  from_file.source_file = embedded.source_file;
  EXPECT_EQ(from_file, embedded);
}

TEST(DefaultTopologyTest, TextIsTheFileVerbatim) {
  EXPECT_EQ(default_topology_text(), read_file_to_string(topologies_dir() / "v5e-16x16.textproto"));
}

}  // namespace
}  // namespace podsim::config
