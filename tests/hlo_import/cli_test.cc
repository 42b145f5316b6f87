// podsim run --hlo and podsim hlo-stats, in-process: the table, CSV, exit
// codes, --set, and the file's hash in the result.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/context.h"
#include "config/diagnostics.h"
#include "config/sha256.h"
#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

CliRun podsim(std::vector<std::string> args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

std::string topology() {
  return (source_dir() / "topologies" / "v5e-2x2.textproto").string();
}
std::string straight() {
  return data("straight.hlo").string();
}

// A file in the test's temporary directory holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// The number after `"key":` in JSON text.
double json_number(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << key;
    return 0;
  }
  return std::stod(json.substr(at + key.size() + 3));
}

TEST(HloCliTest, RunPrintsTheOperationsByInstructionName) {
  const CliRun r = podsim({"run", "--hlo", straight(), "-t", topology()});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"dot.1", "all-reduce.1", "gelu", "proj", "proj.epilogue"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("straight on tpu-v5e-2x2"), std::string::npos) << r.out;
}

TEST(HloCliTest, TheTraceNamesInstructionsAndTheirOpNames) {
  const auto trace = std::filesystem::temp_directory_path() / "hlo_cli_trace.json";
  const CliRun r =
      podsim({"run", "--hlo", straight(), "-t", topology(), "--trace", trace.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string json = config::read_file_to_string(trace);
  EXPECT_NE(json.find("\"name\":\"dot.1\""), std::string::npos);
  EXPECT_NE(json.find("\"op_name\":\"jit(step)/up\""), std::string::npos);
}

TEST(HloCliTest, CsvCarriesTheFilesPathAndHash) {
  const CliRun r = podsim({"run", "--hlo", straight(), "-t", topology(), "-f", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string sha = config::sha256_hex(config::read_file_to_string(straight()));
  EXPECT_NE(r.out.find(sha), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("straight.hlo"), std::string::npos);
}

TEST(HloCliTest, SetWorksOnTheTopologyOnly) {
  const CliRun base = podsim({"run", "--hlo", straight(), "-t", topology(), "-f", "json"});
  const CliRun fast = podsim({"run", "--hlo", straight(), "-t", topology(), "-f", "json", "--set",
                              "topology.torus.dims[0].link_bandwidth_gbps=200", "--set",
                              "topology.torus.dims[1].link_bandwidth_gbps=200"});
  ASSERT_EQ(base.code, 0) << base.err;
  ASSERT_EQ(fast.code, 0) << fast.err;
  EXPECT_LT(json_number(fast.out, "makespan_us"), json_number(base.out, "makespan_us"));
  const CliRun workload =
      podsim({"run", "--hlo", straight(), "-t", topology(), "--set", "workload.scenario.batch=2"});
  EXPECT_EQ(workload.code, 2);
  EXPECT_NE(workload.err.find("no workload file to override"), std::string::npos) << workload.err;
}

TEST(HloCliTest, ExitCodes) {
  // Usage: no topology, --hlo with --workload, an --hlo-* option alone.
  CliRun r = podsim({"run", "--hlo", straight()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--topology"), std::string::npos) << r.err;
  EXPECT_EQ(podsim({"run", "--hlo", straight(), "-t", topology(), "-w", straight()}).code, 2);
  EXPECT_EQ(podsim({"run", "-t", topology(), "--hlo-branch", "c=1"}).code, 2);
  EXPECT_EQ(podsim({"run", "--hlo", straight(), "-t", topology(), "--hlo-trip-count", "loop"}).code,
            2);
  // A parse error: file, line and column.
  const std::string broken =
      temp_file("hlo_cli_broken.hlo", "HloModule m\nENTRY %e {\n  %x = f32[8] parameter(0\n}\n");
  r = podsim({"run", "--hlo", broken, "-t", topology()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hlo_cli_broken.hlo:4:1"), std::string::npos) << r.err;
  // Bad input: a device count the pod does not have; an irregular group.
  const std::string eight =
      temp_file("hlo_cli_eight.hlo",
                "HloModule m, num_partitions=8\nENTRY %e {\n  ROOT %x = f32[8] parameter(0)\n}\n");
  r = podsim({"run", "--hlo", eight, "-t", topology()});
  EXPECT_EQ(r.code, 2);
  const std::string irregular = temp_file("hlo_cli_irregular.hlo", R"(HloModule m, num_partitions=4
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e {
  %x = f32[64]{0} parameter(0)
  ROOT %ar = f32[64]{0} all-reduce(%x), channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=%add
}
)");
  r = podsim({"run", "--hlo", irregular, "-t", topology()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("hlo_cli_irregular.hlo:9:"), std::string::npos) << r.err;
  // --hlo-devices as a list and as a file.
  EXPECT_EQ(podsim({"run", "--hlo", straight(), "-t", topology(), "--hlo-devices", "3,2,1,0"}).code,
            0);
  const std::string devices = temp_file("hlo_cli_devices.txt", "0 2\n1 3\n");
  EXPECT_EQ(podsim({"run", "--hlo", straight(), "-t", topology(), "--hlo-devices", devices}).code,
            0);
  EXPECT_EQ(podsim({"run", "--hlo", straight(), "-t", topology(), "--hlo-devices", "0,1"}).code, 2);
}

TEST(HloCliTest, HloStatsCountsTheModule) {
  const CliRun r = podsim({"hlo-stats", straight()});
  ASSERT_EQ(r.code, 0) << r.err;
  // Two dots (one fused): 2 x 256 x 512 x 1024 + 2 x 256 x 1024 x 512.
  EXPECT_NE(r.out.find("dot_flops 536870912\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("collective all-reduce count 1 bytes 524288\n"), std::string::npos) << r.out;
  EXPECT_EQ(podsim({"hlo-stats"}).code, 2);
}

}  // namespace
}  // namespace podsim::hlo_import::testing
