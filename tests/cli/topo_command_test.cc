// `podsim topo` on shipped pods: the figures a user reads, in every format.
// Expected values are worked out by hand from the torus shapes in the files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"

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

TEST(TopoCommand, DefaultPodIsV5e16x16) {
  const std::string json = run_ok({"topo", "--format", "json"});
  EXPECT_TRUE(has(json, "\"chips\": 256")) << json;
  EXPECT_TRUE(has(json, "\"links\": 1024"));                     // 256 chips x 4 ports
  EXPECT_TRUE(has(json, "\"diameter_hops\": 16"));               // 8 + 8
  EXPECT_TRUE(has(json, "\"bisection_links\": 32"));             // 16 rows x 2 (wrap), one way
  EXPECT_TRUE(has(json, "\"bisection_bandwidth_gbps\": 1600"));  // Google: 1.6 TB/s
  EXPECT_TRUE(has(json, "\"chip_ici_bandwidth_gbps\": 400"));    // Google: 400 GB/s
}

TEST(TopoCommand, PartialWraparoundV5e8x16) {
  const std::string json = run_ok({"topo", topology("v5e-8x16.textproto"), "--format=json"});
  EXPECT_TRUE(has(json, "\"chips\": 128"));
  // x (8, a line): 7 hops; y (16, a ring): 8 hops.
  EXPECT_TRUE(has(json, "\"diameter_hops\": 15")) << json;
  // Cutting x: 16 links one way; cutting y: 8 columns x 2 = 16; both 800 GB/s.
  EXPECT_TRUE(has(json, "\"bisection_links\": 16"));
  EXPECT_TRUE(has(json, "\"bisection_bandwidth_gbps\": 800"));
}

TEST(TopoCommand, V4FullPod3D) {
  const std::string json = run_ok({"topo", topology("v4-16x16x16.textproto"), "-f", "json"});
  EXPECT_TRUE(has(json, "\"chips\": 4096"));
  EXPECT_TRUE(has(json, "\"links\": 24576"));  // 4096 x 6 ports
  EXPECT_TRUE(has(json, "\"diameter_hops\": 24"));
  EXPECT_TRUE(has(json, "\"bisection_links\": 512"));  // 16 x 16 x 2
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
  EXPECT_TRUE(has(contents.str(), "\"chips\": 256"));
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
