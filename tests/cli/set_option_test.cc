// `--set PATH=VALUE` end to end through the command line, in-process: the
// overridden field changes the result as it should, on files and on the
// embedded defaults, and bad overrides exit 2 with a message naming them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// The number after "key": in a JSON text (its first occurrence).
double json_number(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\": (-?[0-9.eE+-]+)");
  std::smatch m;
  if (!std::regex_search(json, m, re)) {
    ADD_FAILURE() << "no key " << key << " in " << json.substr(0, 400);
    return 0;
  }
  return std::stod(m[1]);
}

// A workload file in the temp directory, removed on destruction.
class TempWorkload {
 public:
  TempWorkload(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() / ("podsim_set_test_" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempWorkload() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// A 256 MiB all-reduce along x of the default pod (16 chips, wrapped, 50 GB/s
// a link one way): bandwidth-bound, so its time goes as 1 / link bandwidth.
constexpr const char* kAllReduceX = R"pb(
  name: "allreduce-x"
  mesh {
    axes { name: "x" dims: "x" }
    axes { name: "y" dims: "y" }
  }
  operations {
    name: "ar"
    collective { kind: ALL_REDUCE bytes: 268435456 axes: "x" }
  }
)pb";

TEST(SetOption, LinkBandwidthScalesTheCollectiveTime) {
  const TempWorkload w("allreduce_x.textproto", kAllReduceX);
  const Result base = run({"run", "-w", w.path(), "--format", "json"});
  ASSERT_EQ(base.code, kExitOk) << base.err;
  const Result fast = run({"run", "-w", w.path(), "--format", "json", "--set",
                           "topology.torus.dims[0].link_bandwidth_gbps=100"});
  ASSERT_EQ(fast.code, kExitOk) << fast.err;
  const Result slow = run({"run", "-w", w.path(), "--format", "json", "--set",
                           "topology.torus.dims[0].link_bandwidth_gbps=25"});
  ASSERT_EQ(slow.code, kExitOk) << slow.err;
  const double t = json_number(base.out, "time_us");
  // [SB]: an all-reduce on one axis takes 2V / W, W = 2 x 50 GB/s both ways
  // round the ring, (N-1)/N of it on a balanced 16-ring: 5.03 ms; hop
  // latencies add 0.3%.
  EXPECT_NEAR(t, 15.0 / 16 * 2.0 * 268435456 / 100e9 * 1e6, t * 0.01);
  EXPECT_NEAR(json_number(fast.out, "time_us"), t / 2, t * 0.01);
  EXPECT_NEAR(json_number(slow.out, "time_us"), t * 2, t * 0.01);
  // The other dimension's links do not carry this collective.
  const Result y = run({"run", "-w", w.path(), "--format", "json", "--set",
                        "topology.torus.dims[1].link_bandwidth_gbps=25"});
  ASSERT_EQ(y.code, kExitOk) << y.err;
  EXPECT_DOUBLE_EQ(json_number(y.out, "time_us"), t);
}

TEST(SetOption, WorkloadOverrideOnTheEmbeddedDefault) {
  const Result base = run({"run", "--format", "json"});
  ASSERT_EQ(base.code, kExitOk) << base.err;
  const Result small = run({"run", "--format", "json", "--set", "workload.scenario.batch=64"});
  ASSERT_EQ(small.code, kExitOk) << small.err;
  EXPECT_EQ(json_number(base.out, "batch"), 512);
  EXPECT_EQ(json_number(small.out, "batch"), 64);
  // 4 sequences per replica instead of 32: less KV cache to read, a shorter step.
  EXPECT_LT(json_number(small.out, "step_time_us"), json_number(base.out, "step_time_us"));
}

TEST(SetOption, SeveralOverridesOnBothInputs) {
  const Result r =
      run({"run", "--format", "json", "--set", "workload.scenario.batch=64", "--set",
           "topology.chip.matrix_units.rows=256", "--set", "topology.chip.peak.bf16_tflops=0",
           "--set", "topology.chip.peak.int8_tops=0", "--set=workload.scenario.context_len=4096"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(json_number(r.out, "batch"), 64);
  EXPECT_EQ(json_number(r.out, "context_len"), 4096);
}

TEST(SetOption, TopoOnTheDefaultPodAndOnAFile) {
  const Result r = run({"topo", "--format", "json", "--set", "topology.torus.dims[0].size=8"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.out, "\"chips\": 128")) << r.out;
  const Result f = run({"topo", (root() / "topologies/v5p-4x4x4.textproto").string(), "--format",
                        "json", "--set", "topology.torus.dims[2].size=8"});
  ASSERT_EQ(f.code, kExitOk) << f.err;
  EXPECT_TRUE(has(f.out, "\"chips\": 128")) << f.out;
}

TEST(SetOption, TopoWarnsOfWorkloadOverrides) {
  const Result r = run({"topo", "--set", "workload.scenario.batch=64"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(has(r.err, "--set workload.scenario.batch=64: ignored, topo reads no workload"))
      << r.err;
}

TEST(SetOption, RuleBrokenByAnOverrideNamesIt) {
  const Result r = run({"topo", "--set", "topology.torus.dims[0].size=2"});
  EXPECT_EQ(r.code, kExitBadInput);
  // The file writes the wraparound: its position stays, the override is named.
  EXPECT_TRUE(std::regex_search(
      r.err,
      std::regex(R"(<embedded:v5e-16x16>:[0-9]+:[0-9]+: torus\.dims\[0\]\.wraparound: needs)")))
      << r.err;
  EXPECT_TRUE(has(r.err, "(with --set topology.torus.dims[0].size=2)")) << r.err;
  const Result set = run({"topo", "--set", "topology.torus.dims[1].link_bandwidth_gbps=0"});
  EXPECT_EQ(set.code, kExitBadInput);
  EXPECT_TRUE(has(set.err,
                  "<embedded:v5e-16x16>: torus.dims[1].link_bandwidth_gbps: must be > 0, "
                  "got 0 (set by --set topology.torus.dims[1].link_bandwidth_gbps=0)"))
      << set.err;
}

TEST(SetOption, BadOverridesExit2WithTheNearestPaths) {
  const Result unknown = run({"topo", "--set", "topology.chip.matrix_units.row=256"});
  EXPECT_EQ(unknown.code, kExitBadInput);
  EXPECT_TRUE(has(unknown.err, "--set: topology.chip.matrix_units.row: unknown field \"row\""))
      << unknown.err;
  EXPECT_TRUE(has(unknown.err, "nearest valid paths: topology.chip.matrix_units.rows"));

  const Result index = run({"run", "--set", "topology.torus.dims[3].size=4"});
  EXPECT_EQ(index.code, kExitBadInput);
  EXPECT_TRUE(has(index.err,
                  "index 3 is out of range: topology.torus.dims has 2 elements in "
                  "<embedded:v5e-16x16> (index 2 appends one)"))
      << index.err;

  const Result malformed = run({"run", "--set", "workload.scenario.batch"});
  EXPECT_EQ(malformed.code, kExitBadInput);
  EXPECT_TRUE(has(malformed.err, "--set: expected PATH=VALUE")) << malformed.err;

  const Result root_missing = run({"run", "--set", "scenario.batch=64"});
  EXPECT_EQ(root_missing.code, kExitBadInput);
  EXPECT_TRUE(has(root_missing.err, "--set: scenario.batch: the path must start with"))
      << root_missing.err;
  EXPECT_TRUE(root_missing.out.empty());
}

TEST(SetOption, ValidateAppliesEachRootToItsKindOfFile) {
  const std::string topo = (root() / "topologies/v5p-4x4x4.textproto").string();
  const std::string work = (root() / "workloads/llama3-70b-decode-v5e.textproto").string();
  // dims[2] exists in the 3D file; the workload is checked against the
  // default (2D) pod, which this override is not for: it is not loaded.
  const Result topo_only = run({"validate", topo, "--set", "topology.torus.dims[2].size=8"});
  EXPECT_EQ(topo_only.code, kExitOk) << topo_only.err;
  EXPECT_TRUE(has(topo_only.out, "128 chips")) << topo_only.out;

  const Result both = run({"validate", topo, work, "--set", "workload.scenario.batch=64", "--set",
                           "topology.chip.ici_ports=6"});
  EXPECT_EQ(both.code, kExitOk) << both.err;
  EXPECT_TRUE(has(both.out, "batch 64")) << both.out;

  const Result bad = run({"validate", work, "--set", "workload.scenario.batch=fast"});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_TRUE(has(bad.err, "--set: workload.scenario.batch: \"fast\" is not a whole number"))
      << bad.err;
}

TEST(SetOption, HelpMentionsIt) {
  for (const char* command : {"run", "topo", "validate"}) {
    const Result r = run({command, "--help"});
    EXPECT_EQ(r.code, kExitOk);
    EXPECT_TRUE(has(r.out, "--set")) << command;
  }
}

}  // namespace
}  // namespace podsim::cli
