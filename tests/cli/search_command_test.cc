// `podsim search` end to end, in-process: the frontier CSV, the best
// configuration's file running under `podsim run` with the reported step
// time, identical output for any --jobs, and clear exit-2 messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

std::string model() {
  return (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
}
std::string slice() {
  return (root() / "topologies/v5e-2x2.textproto").string();
}

// A small decode search: three batch sizes on 4 chips.
std::vector<std::string> small(std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"search", "--model",   model(),  "--topology",
                                   slice(),  "--phase",   "decode", "--context",
                                   "1024",   "--batches", "8,16,32"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::filesystem::path temp(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("podsim-search-test-" + name);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Column `name` of every record.
std::vector<std::string> column(const std::string& csv, const std::string& name) {
  const report::CsvDocument t = report::parse_csv(csv, "<csv>");
  const int k = t.column(name);
  EXPECT_GE(k, 0) << "no column " << name;
  std::vector<std::string> out;
  for (const auto& row : t.rows)
    out.push_back(k >= 0 ? row.cells[static_cast<size_t>(k)] : "");
  return out;
}

TEST(SearchCommand, FrontierIsCsvAndTheBestFileRunsWithTheReportedStepTime) {
  const auto best = temp("best.textproto");
  std::filesystem::remove(best);
  const Result r = run(small({"--tpot-ms", "1000", "--write-best", best.string()}));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out.rfind("topology,topology_file,chips,mesh,", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("podsim search: best under TPOT 1000 ms: "), std::string::npos) << r.err;
  const std::vector<std::string> tpot = column(r.out, "tpot_us");
  ASSERT_GE(tpot.size(), 1u);
  // Latency rises and throughput rises along the frontier.
  const std::vector<std::string> thr = column(r.out, "tokens_per_s_per_chip");
  for (size_t i = 1; i < tpot.size(); ++i) {
    EXPECT_LE(std::stod(tpot[i - 1]), std::stod(tpot[i]));
    EXPECT_LT(std::stod(thr[i - 1]), std::stod(thr[i]));
  }

  // The best under a loose target is the highest-throughput point: the last row.
  const std::string text = slurp(best);
  const std::string name = column(r.out, "candidate").back();
  EXPECT_NE(text.find("name: \"" + name + "\""), std::string::npos) << text;
  const Result ran = run({"run", "-w", best.string(), "-t", slice(), "--format", "csv"});
  ASSERT_EQ(ran.code, kExitOk) << ran.err;
  const double reported = std::stod(column(r.out, "step_time_us").back());
  const double replayed = std::stod(column(ran.out, "serving.step_time_us").front());
  EXPECT_NEAR(replayed, reported, reported * 1e-9);
  std::filesystem::remove(best);
}

TEST(SearchCommand, OutputIsTheSameForAnyNumberOfJobs) {
  const Result one = run(small({"--jobs", "1"}));
  const Result two = run(small({"--jobs", "2"}));
  ASSERT_EQ(one.code, kExitOk) << one.err;
  ASSERT_EQ(two.code, kExitOk) << two.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.err, two.err);
}

TEST(SearchCommand, TargetNoneMeetsExitsOneAndWritesNoFile) {
  const auto best = temp("unmet.textproto");
  const auto out = temp("unmet.csv");
  std::filesystem::remove(best);
  std::filesystem::remove(out);
  const Result r =
      run(small({"--tpot-ms", "0.001", "--write-best", best.string(), "--out", out.string()}));
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_NE(r.err.find("no configuration meets TPOT <= 0.001 ms (the fastest takes"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(best));
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(slurp(out).rfind("topology,", 0), 0u);  // the frontier is still written
  std::filesystem::remove(out);
}

// Issue 27: --write-best onto the --calibration profile replaced it.
TEST(SearchCommand, WriteBestNeverReplacesTheCalibrationProfile) {
  const auto profile = temp("profile.textproto");
  std::filesystem::copy_file(root() / "topologies/calibration/v5e.textproto", profile,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string before = slurp(profile);
  const Result r =
      run(small({"--calibration", profile.string(), "--write-best", profile.string()}));
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_NE(r.err.find("--write-best " + profile.string() + " is also the --calibration input"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(profile), before);
  std::filesystem::remove(profile);
}

TEST(SearchCommand, BadArgumentsExitTwoWithAClearMessage) {
  const std::string m = model();
  const std::string t = slice();
  const std::vector<std::string> base = {"search", "--model", m, "--topology", t};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"search", "--topology", t, "--phase", "decode", "--context", "8"}, "needs --model"},
      {{"search", "--model", m, "--phase", "decode", "--context", "8"}, "needs --topology"},
      {with({"--context", "8"}), "needs --phase"},
      {with({"--phase", "decode"}), "needs --context"},
      {with({"--phase", "both", "--context", "8"}), "--phase: expected prefill or decode"},
      {with({"--phase", "decode", "--context", "0"}), "--context: expected 1 to 16777215"},
      {with({"--phase", "decode", "--context", "-3"}), "--context: expected 1"},
      {with({"--phase", "prefill", "--context", "0"}), "needs --prompt"},
      {with({"--phase", "decode", "--context", "8", "--prompt", "4"}), "--prompt applies to"},
      {with({"--phase", "prefill", "--context", "0", "--prompt", "0"}), "--prompt: expected 1"},
      {with({"--phase", "decode", "--context", "8", "--ttft-ms", "5"}), "--ttft-ms is a prefill"},
      {with({"--phase", "prefill", "--context", "0", "--prompt", "8", "--tpot-ms", "5"}),
       "--tpot-ms is a decode"},
      {with({"--phase", "decode", "--context", "8", "--tpot-ms", "-1"}),
       "--tpot-ms must be a positive"},
      {with({"--phase", "decode", "--context", "8", "--batches", "8,,16"}),
       "--batches: '' is not a batch size"},
      {with({"--phase", "decode", "--context", "8", "--batches", "0"}), "'0' is not a batch"},
      {with({"--phase", "decode", "--context", "8", "--batches", "4x"}), "'4x' is not a batch"},
      {with({"--phase", "decode", "--context", "8", "--jobs", "0"}), "--jobs: expected 1 to"},
      {{"search", "--model", (root() / "workloads/matmuls-v5e-4x4.textproto").string(),
        "--topology", t, "--phase", "decode", "--context", "8"},
       "model: the file has no serving model"},
      {{"search", "--model", "no-such.textproto", "--topology", t, "--phase", "decode", "--context",
        "8"},
       "no-such.textproto"},
      {{"search", "--model", m, "--topology", m, "--phase", "decode", "--context", "8"},
       "llama3-8b-decode-v5e.textproto"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << message << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << message << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << message;
  }
}

TEST(SearchCommand, SetChangesTheSlicesAndTheModelOnly) {
  const Result base = run(small());
  const Result faster = run(small(
      {"--set", "topology.chip.hbm_bandwidth_gbps=1638", "--set", "workload.model.layers=16"}));
  ASSERT_EQ(base.code, kExitOk) << base.err;
  ASSERT_EQ(faster.code, kExitOk) << faster.err;
  // Half the layers on twice the HBM bandwidth: every decode step is faster.
  const double before = std::stod(column(base.out, "tpot_us").front());
  const double after = std::stod(column(faster.out, "tpot_us").front());
  EXPECT_LT(after, before * 0.5);
  const Result sharding = run(small({"--set", "workload.sharding.tensor_axes=[x]"}));
  EXPECT_EQ(sharding.code, kExitBadInput);
  EXPECT_NE(sharding.err.find("topology.* and workload.model.* overrides only"), std::string::npos)
      << sharding.err;
  const Result typo = run(small({"--set", "workload.model.layer=16"}));
  EXPECT_EQ(typo.code, kExitBadInput);
  EXPECT_NE(typo.err.find("workload.model.layers"), std::string::npos) << typo.err;
}

TEST(SearchCommand, CalibrationAppliesToEverySliceAndTheFrontierNamesIt) {
  const Result ideal = run(small());
  ASSERT_EQ(ideal.code, kExitOk) << ideal.err;
  const std::string profile = (root() / "topologies/calibration/v5e.textproto").string();
  const Result calibrated = run(small({"--calibration", profile}));
  ASSERT_EQ(calibrated.code, kExitOk) << calibrated.err;
  for (const std::string& name : column(calibrated.out, "calibration"))
    EXPECT_EQ(name, "v5e-microbenchmarks");
  for (const std::string& name : column(ideal.out, "calibration"))
    EXPECT_EQ(name, "");
  // The losses only slow the fastest configuration down.
  EXPECT_GT(std::stod(column(calibrated.out, "tpot_us").front()),
            std::stod(column(ideal.out, "tpot_us").front()));
  const Result v4 =
      run(small({"--calibration", (root() / "topologies/calibration/v4.textproto").string()}));
  EXPECT_EQ(v4.code, kExitBadInput);
  EXPECT_NE(v4.err.find("\"TPU v4\""), std::string::npos) << v4.err;
}

}  // namespace
}  // namespace podsim::cli
