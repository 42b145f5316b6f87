// `podsim topo` on shipped pods: the figures a user reads, in every format.
// Expected values are worked out by hand from the torus shapes in the files.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "podsim/topology_report.pb.h"

namespace podsim::cli {
namespace {

std::string topology(const std::string& file) {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  const std::filesystem::path root = env != nullptr ? env : std::filesystem::current_path();
  return (root / "topologies" / file).string();
}

std::string run_ok(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, out, err);
  EXPECT_EQ(code, kExitOk) << err.str();
  return out.str();
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The JSON read into its schema (proto/podsim/topology_report.proto) by
// Protobuf's parser, which rejects any key the schema does not have.
output::TopologyReport topo_json(const std::vector<std::string>& args) {
  const std::string json = run_ok(args);
  output::TopologyReport r;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &r);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return r;
}

TEST(TopoCommand, DefaultPodIsV5e16x16) {
  const output::TopologyReport r = topo_json({"topo", "--format", "json"});
  EXPECT_EQ(r.name(), "tpu-v5e-16x16");
  EXPECT_EQ(r.shape(), "16x16");
  EXPECT_EQ(r.chips(), 256U);
  EXPECT_EQ(r.links(), 1024U);                      // 256 chips x 4 ports
  EXPECT_EQ(r.diameter_hops(), 16U);                // 8 + 8
  EXPECT_EQ(r.bisection_links(), 32U);              // 16 rows x 2 (wrap), one way
  EXPECT_EQ(r.bisection_bandwidth_gbps(), 1600.0);  // Google: 1.6 TB/s
  EXPECT_EQ(r.chip_ici_bandwidth_gbps(), 400.0);    // Google: 400 GB/s
  ASSERT_EQ(r.dims_size(), 2);
  EXPECT_TRUE(r.dims(0).wraparound());
  // Every field is written, zeros too: a script finds "twists": 0, not a missing key.
  EXPECT_TRUE(r.has_twists() && r.has_failed_links() && r.has_dcn_links());
  EXPECT_EQ(r.twists(), 0U);
}

TEST(TopoCommand, PartialWraparoundV5e8x16) {
  const output::TopologyReport r =
      topo_json({"topo", topology("v5e-8x16.textproto"), "--format=json"});
  EXPECT_EQ(r.chips(), 128U);
  // x (8, a line): 7 hops; y (16, a ring): 8 hops.
  EXPECT_EQ(r.diameter_hops(), 15U);
  // Cutting x: 16 links one way; cutting y: 8 columns x 2 = 16; both 800 GB/s.
  EXPECT_EQ(r.bisection_links(), 16U);
  EXPECT_EQ(r.bisection_bandwidth_gbps(), 800.0);
  EXPECT_FALSE(r.dims(0).wraparound());
}

TEST(TopoCommand, V4FullPod3D) {
  const output::TopologyReport r =
      topo_json({"topo", topology("v4-16x16x16.textproto"), "-f", "json"});
  EXPECT_EQ(r.chips(), 4096U);
  EXPECT_EQ(r.links(), 24576U);  // 4096 x 6 ports
  EXPECT_EQ(r.diameter_hops(), 24U);
  EXPECT_EQ(r.bisection_links(), 512U);  // 16 x 16 x 2
}

TEST(TopoCommand, CsvIsOneHeaderAndOneRow) {
  const std::string csv = run_ok({"topo", "--format", "csv"});
  std::istringstream in(csv);
  std::string header;
  std::string row;
  std::string extra;
  ASSERT_TRUE(std::getline(in, header));
  ASSERT_TRUE(std::getline(in, row));
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header.rfind("name,chip,shape,", 0), 0U) << header;
  EXPECT_TRUE(has(header, "bisection_bandwidth_gbps"));
  EXPECT_EQ(row.rfind("tpu-v5e-16x16,TPU v5e,16x16,TT,", 0), 0U) << row;
}

TEST(TopoCommand, TableIsHumanReadable) {
  const std::string table = run_ok({"topo"});
  EXPECT_TRUE(has(table, "bisection"));
  EXPECT_TRUE(has(table, "1600.0 GB/s"));
  EXPECT_TRUE(has(table, "16 hops"));
}

TEST(TopoCommand, OutWritesTheFileAndNothingToStdout) {
  const auto path = std::filesystem::temp_directory_path() / "podsim_topo_out.json";
  std::filesystem::remove(path);
  const std::string out = run_ok({"topo", "--format", "json", "--out", path.string()});
  EXPECT_TRUE(out.empty());
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  EXPECT_TRUE(has(contents.str(), "\"chips\": 256")) << contents.str();
}

TEST(TopoCommand, UnwritableOutIsBadInputAndLeavesNoFile) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_cli({"topo", "--out", "/nonexistent-dir/x.json"}, out, err), kExitBadInput);
  EXPECT_TRUE(has(err.str(), "/nonexistent-dir/x.json"));
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir"));
}

TEST(TopoCommand, BadTopologyLeavesNoPartialOutput) {
  const auto bad = std::filesystem::temp_directory_path() / "podsim_bad_topo.textproto";
  std::ofstream(bad) << "name: \"broken\"\n";
  const auto path = std::filesystem::temp_directory_path() / "podsim_should_not_exist.json";
  std::filesystem::remove(path);
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_cli({"topo", bad.string(), "--out", path.string()}, out, err), kExitBadInput);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(has(err.str(), "chip")) << err.str();
  EXPECT_TRUE(out.str().empty());
}

TEST(TopoCommand, BadFormatIsUsageError) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_cli({"topo", "--format", "xml"}, out, err), kExitBadInput);
  EXPECT_TRUE(has(err.str(), "xml"));
}

}  // namespace
}  // namespace podsim::cli
