// `podsim run` on operation-list workloads, in-process: the JSON a script
// reads, the exit codes, and that bad input leaves no output behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"

namespace podsim::cli {
namespace {

std::filesystem::path root() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

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
  const Result r = run({"run", "--topology", (root() / "topologies/v5e-16x16.textproto").string(),
                        "--workload",
                        (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(),
                        "--format", "json"});
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
  // CSV: start_us (col 11) of each operation >= end_us (col 12) of what it waits for.
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("topology,workload,network,chips,name,kind,bytes,axes", 0), 0U) << line;
  std::map<std::string, std::pair<double, double>> span;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) {
      cells.push_back(c);
    }
    ASSERT_EQ(cells.size(), 17U) << line;
    span[cells[4]] = {std::stod(cells[10]), std::stod(cells[11])};
  }
  ASSERT_EQ(span.size(), 6U);
  // The tour: gather and scatter start at 0; reduce after both; shuffle after reduce.
  EXPECT_EQ(span["gather"].first, 0.0);
  EXPECT_EQ(span["scatter"].first, 0.0);
  EXPECT_GE(span["reduce"].first, std::max(span["gather"].second, span["scatter"].second));
  EXPECT_GE(span["shuffle"].first, span["reduce"].second);
}

TEST(RunCommand, IsDeterministic) {
  const std::vector<std::string> args = {
      "run", "-t", (root() / "topologies/v5e-16x16-x2-dcn.textproto").string(), "-w",
      (root() / "workloads/allreduce-2slice-dcn.textproto").string(), "-f", "json"};
  const Result a = run(args);
  const Result b = run(args);
  ASSERT_EQ(a.code, kExitOk) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(RunCommand, UsageErrors) {
  EXPECT_EQ(run({"run"}).code, kExitBadInput);
  const std::string w = (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string();
  EXPECT_EQ(run({"run", "-w", w, "--network", "wormhole"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--switching", "teleport"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--packet-bytes", "0"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--format", "yaml"}).code, kExitBadInput);
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
  const Result ok = run({"validate", "--topology",
                         (root() / "topologies/v5p-8x16x16-twisted.textproto").string(),
                         (root() / "workloads/alltoall-v5p-8x16x16.textproto").string()});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_NE(ok.out.find("ok (workload"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace podsim::cli
