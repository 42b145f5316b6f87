// `podsim run` on operation-list workloads, in-process: the JSON a script
// reads, the exit codes, and that bad input leaves no output behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

// The number after "key": in a JSON text (first occurrence after `from`).
double json_number(const std::string& json, const std::string& key, size_t from = 0) {
  const std::regex re("\"" + key + "\": (-?[0-9.eE+-]+)");
  std::smatch m;
  const std::string tail = json.substr(from);
  if (!std::regex_search(tail, m, re)) {
    ADD_FAILURE() << "no key " << key;
    return 0;
  }
  return std::stod(m[1]);
}

TEST(RunCommand, AllReduceJsonCarriesTheNcclFigures) {
  const Result r =
      run({"run", "--topology", (root() / "topologies/v5e-16x16.textproto").string(), "--workload",
           (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(), "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* key : {"\"collectives\"", "\"name\": \"allreduce\"", "\"kind\": \"all-reduce\"",
                          "\"bytes\": 1073741824", "\"time_us\"", "\"algbw_gbps\"",
                          "\"busbw_gbps\"", "\"link_util_mean\"", "\"link_util_max\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
  }
  const double time_us = json_number(r.out, "time_us");
  const double algbw = json_number(r.out, "algbw_gbps");
  const double busbw = json_number(r.out, "busbw_gbps");
  // algbw = V / time; busbw = algbw x 2(N-1)/N with N = 256.
  EXPECT_NEAR(algbw, 1073741824.0 / (time_us * 1e-6) * 1e-9, algbw * 1e-9);
  EXPECT_NEAR(busbw, algbw * 2 * 255 / 256, busbw * 1e-9);
  // [SB]: 2V / (W x 2 axes) = 10.74 ms; the schedule adds 1/16 for the second axis.
  EXPECT_NEAR(time_us, 10737.4 * (1 + 1.0 / 16), 10737.4 * 0.02);
}

TEST(RunCommand, NetworkModelsAgreeOnTheShippedAllGather) {
  double times[3];
  const char* models[] = {"analytical", "flow", "packet"};
  for (int i = 0; i < 3; ++i) {
    const Result r = run({"run", "-t", (root() / "topologies/v5e-8x16.textproto").string(), "-w",
                          (root() / "workloads/allgather-v5e-8x16.textproto").string(), "-n",
                          models[i], "-f", "json"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    times[i] = json_number(r.out, "makespan_us");
  }
  EXPECT_NEAR(times[0], times[1], times[1] * 0.01);
  EXPECT_NEAR(times[2], times[1], times[1] * 0.01);
}

TEST(RunCommand, DependenciesOrderOperations) {
  const Result r =
      run({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
           (root() / "workloads/collectives-tour-v5e-4x4.textproto").string(), "-f", "csv"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  // CSV: start_us (col 13) of each operation >= end_us (col 14) of what it waits for.
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("schema_version,topology,workload,network,compute,chips,name,kind,bytes", 0),
            0U)
      << line;
  std::map<std::string, std::pair<double, double>> span;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) {
      cells.push_back(c);
    }
    // 19, then flops, hbm_bytes, bound, achieved_tflops, schedule
    ASSERT_EQ(cells.size(), 24U) << line;
    span[cells[6]] = {std::stod(cells[12]), std::stod(cells[13])};
  }
  ASSERT_EQ(span.size(), 7U);
  // The tour: gather and scatter start at 0; reduce after both; shuffle after reduce.
  EXPECT_EQ(span["gather"].first, 0.0);
  EXPECT_EQ(span["scatter"].first, 0.0);
  EXPECT_GE(span["reduce"].first, std::max(span["gather"].second, span["scatter"].second));
  EXPECT_GE(span["shuffle"].first, span["reduce"].second);
  EXPECT_GE(span["migrate"].first, span["shift"].second);
}

TEST(RunCommand, IsDeterministic) {
  const std::vector<std::string> args = {
      "run",
      "-t",
      (root() / "topologies/v5e-16x16-x2-dcn.textproto").string(),
      "-w",
      (root() / "workloads/allreduce-2slice-dcn.textproto").string(),
      "-f",
      "json"};
  const Result a = run(args);
  const Result b = run(args);
  ASSERT_EQ(a.code, kExitOk) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(RunCommand, UsageErrors) {
  const std::string w = (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string();
  EXPECT_EQ(run({"run", "-w", w, "--network", "wormhole"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--switching", "teleport"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--packet-bytes", "0"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--packet-bytes", "-5"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--format", "yaml"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "--compute", "abacus"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "--compute", "table"}).code, kExitBadInput);  // needs --op-table
}

TEST(RunCommand, NoArgumentsRunsTheEmbeddedDefault) {
  const Result r = run({"run", "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"model\": \"LLaMA-3-70B\""), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("\"phase\": \"decode\""), std::string::npos);
  EXPECT_NE(r.out.find("\"topology\": \"tpu-v5e-16x16\""), std::string::npos);
  for (const char* key : {"step_time_us", "compute_us", "memory_us", "collective_exposed_us",
                          "idle_us", "collective_overlapped_us", "tokens_per_s",
                          "tokens_per_s_per_chip", "mfu", "hbm_used_bytes", "hbm_capacity_bytes",
                          "fits", "by_layer", "by_op_class", "chips_breakdown"}) {
    std::string quoted = "\"";
    quoted += key;
    quoted += '"';
    EXPECT_NE(r.out.find(quoted), std::string::npos) << key;
  }
  // The four parts add up to the step time.
  const double parts = json_number(r.out, "compute_us") + json_number(r.out, "memory_us") +
                       json_number(r.out, "collective_exposed_us") + json_number(r.out, "idle_us");
  EXPECT_NEAR(parts, json_number(r.out, "step_time_us"), 1e-3);
}

TEST(RunCommand, ShippedServingWorkloadsRunInEveryFormat) {
  for (const char* w : {"llama3-8b-decode-v5e", "mixtral-8x7b-decode-v5e"}) {
    const auto file = root() / "workloads" / (std::string(w) + ".textproto");
    std::ifstream in(file);
    std::string line;
    std::string topology;
    while (std::getline(in, line)) {
      if (line.rfind("# topology: ", 0) == 0) {
        topology = line.substr(12);
      }
    }
    ASSERT_FALSE(topology.empty()) << w;
    for (const char* f : {"table", "json", "csv"}) {
      const Result r =
          run({"run", "-w", file.string(), "-t", (root() / topology).string(), "-f", f});
      EXPECT_EQ(r.code, kExitOk) << w << " " << f << ": " << r.err;
      EXPECT_FALSE(r.out.empty());
    }
  }
}

TEST(RunCommand, ConfigurationThatDoesNotFitExits1UnlessAllowed) {
  // The 8B decode workload cannot hold its weights in 1.6 GB per chip.
  const std::string w = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const auto tiny = std::filesystem::temp_directory_path() / "podsim_tiny_pod.textproto";
  {
    // The v5e 4x4 slice the workload is written for, with a tenth of the HBM.
    std::ifstream in(root() / "topologies/v5e-4x4.textproto");
    std::stringstream text;
    text << in.rdbuf();
    std::string t = text.str();
    const auto at = t.find("hbm_bytes:");
    ASSERT_NE(at, std::string::npos);
    const auto end = t.find('\n', at);
    t.replace(at, end - at, "hbm_bytes: 1600000000");
    std::ofstream(tiny) << t;
  }
  const Result r = run({"run", "-w", w, "-t", tiny.string(), "-f", "json"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_NE(r.out.find("\"fits\": false"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("step_time_us"), std::string::npos);
  const Result allowed = run({"run", "-w", w, "-t", tiny.string(), "-f", "json", "--allow-oom"});
  EXPECT_EQ(allowed.code, kExitOk) << allowed.err;
  EXPECT_NE(allowed.out.find("\"fits\": false"), std::string::npos);
  EXPECT_NE(allowed.out.find("step_time_us"), std::string::npos);
}

TEST(RunCommand, WorkloadThatDoesNotFitThePodIsBadInputWithNoOutput) {
  // The v5p all-to-all names a "z" dimension; the default pod is 2D.
  const auto out_path = std::filesystem::temp_directory_path() / "podsim_run_should_not_exist.json";
  std::filesystem::remove(out_path);
  const Result r = run({"run", "-w", (root() / "workloads/alltoall-v5p-8x16x16.textproto").string(),
                        "-o", out_path.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("alltoall-v5p-8x16x16.textproto:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"z\""), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(out_path));
}

TEST(RunCommand, ValidateChecksWorkloadsAgainstATopology) {
  const Result ok =
      run({"validate", "--topology", (root() / "topologies/v5p-8x16x16-twisted.textproto").string(),
           (root() / "workloads/alltoall-v5p-8x16x16.textproto").string()});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_NE(ok.out.find("ok (workload"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace podsim::cli
