// podsim sweep end to end, in-process: one row per point in point order, the
// same bytes for any --jobs, each point's row equal to `podsim run` with the
// same overrides, invalid and oom points as rows, every shipped example
// valid, bad sweeps refused with exit 2 and no output file, and generations
// with the sweep's step options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"
#include "report/result_print.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

// A sweep file in the temp directory, removed with the test.
class SweepFile {
 public:
  SweepFile(const std::string& name, const std::string& text)
      : path_(fs::temp_directory_path() / ("podsim_sweep_test_" + name + ".textproto")) {
    std::ofstream(path_) << text;
  }
  ~SweepFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// The base is written out so that rows compare with `podsim run -t -w`.
std::string small_sweep(const std::string& extra) {
  return "topology: \"" + (root() / "topologies/v5e-4x4.textproto").string() + "\"\n" +
         "workload: \"" + (root() / "workloads/llama3-8b-decode-v5e.textproto").string() + "\"\n" +
         extra;
}

const std::string kGrid = R"(
  parameters { path: "workload.scenario.batch" values: ["64", "16", "256"] }
  parameters { path: "topology.torus.dims[0].link_bandwidth_gbps"
               also: "topology.torus.dims[1].link_bandwidth_gbps" values: ["25", "100"] }
)";

report::CsvDocument csv(const std::string& text) {
  return report::parse_csv(text, "<stdout>");
}

std::string cell(const report::CsvDocument& d, size_t row, const std::string& column) {
  const int k = d.column(column);
  EXPECT_GE(k, 0) << "no column " << column;
  return k < 0 ? "" : d.rows.at(row).cells.at(static_cast<size_t>(k));
}

TEST(SweepCommand, OneRowPerPointInGridOrderWithItsOverrides) {
  const SweepFile f("grid", small_sweep(kGrid));
  const Result r = run({"sweep", f.path()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = csv(r.out);
  ASSERT_EQ(d.rows.size(), 6U);
  EXPECT_EQ(cell(d, 0, "inputs.workload.overrides"), "workload.scenario.batch=64");
  EXPECT_EQ(cell(d, 1, "inputs.topology.overrides"),
            "topology.torus.dims[0].link_bandwidth_gbps=100;"
            "topology.torus.dims[1].link_bandwidth_gbps=100");
  EXPECT_EQ(cell(d, 1, "inputs.topology.dims.link_bandwidth_gbps"), "100;100");
  EXPECT_EQ(cell(d, 4, "inputs.serving.scenario.batch"), "256");
  for (size_t i = 0; i < d.rows.size(); ++i)
    EXPECT_EQ(cell(d, i, "status"), "ok") << cell(d, i, "reason");
  // Faster links never make the step slower.
  EXPECT_LE(std::stod(cell(d, 1, "serving.step_time_us")),
            std::stod(cell(d, 0, "serving.step_time_us")));
}

TEST(SweepCommand, EachRowIsWhatRunGivesForTheSameOverrides) {
  const SweepFile f("same", small_sweep(kGrid));
  const Result sweep = run({"sweep", f.path()});
  ASSERT_EQ(sweep.code, kExitOk) << sweep.err;
  const Result one = run({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
                          (root() / "workloads/llama3-8b-decode-v5e.textproto").string(), "--set",
                          "topology.torus.dims[0].link_bandwidth_gbps=100", "--set",
                          "topology.torus.dims[1].link_bandwidth_gbps=100", "--set",
                          "workload.scenario.batch=256", "--format", "csv"});
  ASSERT_EQ(one.code, kExitOk) << one.err;
  std::istringstream lines(sweep.out);
  std::string header;
  std::string row;
  std::getline(lines, header);
  for (int i = 0; i < 6; ++i)
    std::getline(lines, row);  // the last point: batch 256, 100 GB/s
  EXPECT_EQ(one.out, header + "\n" + row + "\n");
}

TEST(SweepCommand, SameBytesForAnyNumberOfJobsInBothFormats) {
  const SweepFile f("jobs", small_sweep(kGrid));
  for (const char* format : {"csv", "jsonl"}) {
    const Result one = run({"sweep", f.path(), "--format", format, "--jobs", "1"});
    const Result two = run({"sweep", f.path(), "--format", format, "--jobs", "2"});
    const Result five = run({"sweep", f.path(), "--format", format, "--jobs", "5"});
    ASSERT_EQ(one.code, kExitOk) << one.err;
    EXPECT_EQ(one.out, two.out) << format;
    EXPECT_EQ(one.out, five.out) << format;
  }
}

TEST(SweepCommand, JsonLinesAreResults) {
  const SweepFile f("jsonl", small_sweep(kGrid));
  const Result r = run({"sweep", f.path(), "--format", "jsonl"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const podsim::Result result = report::result_from_json(line);
    EXPECT_EQ(result.status(), podsim::Result::ok);
    EXPECT_GT(result.serving().step_time_us(), 0);
    ++n;
  }
  EXPECT_EQ(n, 6);
}

TEST(SweepCommand, InvalidAndOomPointsAreRowsThatSaySo) {
  // Batch 8 over 16 chips of batch-sharded KV is invalid; a 1 GB HBM does not fit.
  const SweepFile f("status", small_sweep(R"(
    combine: ZIP
    parameters { path: "workload.scenario.batch" values: ["8", "64", "64"] }
    parameters { path: "topology.chip.hbm_bytes" values: ["16000000000", "1000000000", "16000000000"] }
  )"));
  const Result r = run({"sweep", f.path()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = csv(r.out);
  ASSERT_EQ(d.rows.size(), 3U);
  EXPECT_EQ(cell(d, 0, "status"), "invalid");
  EXPECT_THAT(cell(d, 0, "reason"), HasSubstr("set by --set workload.scenario.batch=8"));
  EXPECT_EQ(cell(d, 0, "inputs.workload.overrides"), "workload.scenario.batch=8");
  EXPECT_EQ(cell(d, 1, "status"), "oom");
  EXPECT_EQ(cell(d, 2, "status"), "ok");
  EXPECT_THAT(r.err, HasSubstr("1 ok, 1 do not fit, 1 invalid"));
}

TEST(SweepCommand, SetOnTheCommandLineReachesEveryPoint) {
  const SweepFile f("set", small_sweep(kGrid));
  const Result r = run({"sweep", f.path(), "--set", "topology.chip.hbm_bandwidth_gbps=1638"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = csv(r.out);
  for (size_t i = 0; i < d.rows.size(); ++i)
    EXPECT_EQ(cell(d, i, "inputs.topology.chip.hbm_bandwidth_gbps"), "1638");
}

TEST(SweepCommand, OutIsWrittenWholeAndNotAtAllWhenEveryPointIsInvalid) {
  const fs::path out = fs::temp_directory_path() / "podsim_sweep_test_out.csv";
  fs::remove(out);
  const SweepFile ok("out", small_sweep(kGrid));
  const Result r = run({"sweep", ok.path(), "--out", out.string()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(csv([&] {
              std::ifstream in(out);
              std::stringstream s;
              s << in.rdbuf();
              return s.str();
            }())
                .rows.size(),
            6U);
  fs::remove(out);

  const SweepFile typo(
      "typo", small_sweep(R"(parameters { path: "workload.scenario.bach" values: ["1", "2"] })"));
  const Result bad = run({"sweep", typo.path(), "--out", out.string()});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_THAT(bad.err, HasSubstr("every point is invalid"));
  EXPECT_THAT(bad.err, HasSubstr("nearest valid paths: workload.scenario.batch"));
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepCommand, EveryPointInvalidWithoutOutPrintsNothing) {
  // Issue 27: the rows were streamed to stdout before the exit 2. They are
  // held until a point is valid, so an all-invalid sweep prints nothing.
  const SweepFile typo(
      "typo_stdout",
      small_sweep(R"(parameters { path: "workload.scenario.bach" values: ["1", "2", "3"] })"));
  for (const char* jobs : {"1", "3"}) {
    const Result bad = run({"sweep", typo.path(), "--jobs", jobs});
    EXPECT_EQ(bad.code, kExitBadInput);
    EXPECT_THAT(bad.err, HasSubstr("every point is invalid"));
    EXPECT_EQ(bad.out, "") << "--jobs " << jobs;
  }
}

TEST(SweepCommand, InvalidRowsBeforeTheFirstValidOneAreAllPrintedInOrder) {
  const SweepFile f("invalid_first", small_sweep(R"(
    parameters { path: "workload.scenario.batch" values: ["8", "8", "64", "8"] }
  )"));
  const Result r = run({"sweep", f.path()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = csv(r.out);
  ASSERT_EQ(d.rows.size(), 4U);
  for (const size_t i : {0U, 1U, 3U})
    EXPECT_EQ(cell(d, i, "status"), "invalid") << i;
  EXPECT_EQ(cell(d, 2, "status"), "ok");
}

TEST(SweepCommand, MixingServingAndOperationListsNeedsJsonLines) {
  const SweepFile f("mixed",
                    "topology: \"" + (root() / "topologies/v5e-4x4.textproto").string() +
                        "\"\nparameters { path: \"workload\" values: [\"" +
                        (root() / "workloads/llama3-8b-decode-v5e.textproto").string() + "\", \"" +
                        (root() / "workloads/matmuls-v5e-4x4.textproto").string() + "\"] }\n");
  const Result csv_run = run({"sweep", f.path()});
  EXPECT_EQ(csv_run.code, kExitBadInput);
  EXPECT_THAT(csv_run.err, HasSubstr("use --format jsonl"));
  const Result jsonl = run({"sweep", f.path(), "--format", "jsonl"});
  EXPECT_EQ(jsonl.code, kExitOk) << jsonl.err;
}

TEST(SweepCommand, EveryShippedExampleRunsWithoutAnInvalidPoint) {
  for (const auto& e : fs::directory_iterator(root() / "workloads/sweeps")) {
    SCOPED_TRACE(e.path().string());
    const Result r = run({"sweep", e.path().string(), "--jobs", "2"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const report::CsvDocument d = csv(r.out);
    EXPECT_GE(d.rows.size(), 3U);
    if (d.column("status") < 0) {  // a sweep of a serve file: serve summary rows
      EXPECT_EQ(d.header.back(), "overrides");
      continue;
    }
    for (size_t i = 0; i < d.rows.size(); ++i)
      EXPECT_EQ(cell(d, i, "status"), "ok") << cell(d, i, "reason");
  }
}

TEST(SweepCommand, BadUsageExitsTwo) {
  const SweepFile f("usage", small_sweep(kGrid));
  EXPECT_EQ(run({"sweep"}).code, kExitBadInput);
  EXPECT_EQ(run({"sweep", f.path(), f.path()}).code, kExitBadInput);
  EXPECT_EQ(run({"sweep", f.path(), "--jobs", "0"}).code, kExitBadInput);
  EXPECT_EQ(run({"sweep", f.path(), "--format", "table"}).code, kExitBadInput);
  EXPECT_EQ(run({"sweep", "/no/such/sweep.textproto"}).code, kExitBadInput);
  const SweepFile broken("broken", "parameters { path: \"network\" values: \"fluid\" }");
  const Result r = run({"sweep", broken.path()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("parameters[0].values[0]"));
  EXPECT_EQ(run({"sweep", f.path(), "--set", "chip.hbm_bytes=1"}).code, kExitBadInput);
}

}  // namespace
}  // namespace podsim::cli

namespace podsim::cli {
namespace {

// Generations in a sweep: the sweep file's every_step and step_tolerance
// reach every point, whose rows carry the generation columns.
TEST(SweepCommand, GenerationsTakeTheSweepsStepOptions) {
  const SweepFile f("generation",
                    "topology: \"" + (root() / "topologies/v5e-4x4.textproto").string() + "\"\n" +
                        "workload: \"" +
                        (root() / "workloads/llama3-8b-generation-v5e.textproto").string() +
                        "\"\n" + R"(
    network: "analytical"
    step_tolerance: 0.01
    parameters { path: "workload.scenario.output_len" values: ["1", "40"] }
  )");
  const Result r = run({"sweep", f.path()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = csv(r.out);
  ASSERT_EQ(d.rows.size(), 2U);
  EXPECT_EQ(cell(d, 0, "generation.decode_steps"), "0");
  EXPECT_EQ(cell(d, 1, "generation.decode_steps"), "39");
  EXPECT_EQ(cell(d, 1, "generation.steps_mode"), "bisection");
  EXPECT_EQ(cell(d, 1, "generation.step_tolerance"), "0.01");
  EXPECT_EQ(cell(d, 1, "inputs.run.step_tolerance"), "0.01");
  const SweepFile every(
      "generation_every",
      "topology: \"" + (root() / "topologies/v5e-4x4.textproto").string() + "\"\nworkload: \"" +
          (root() / "workloads/llama3-8b-generation-v5e.textproto").string() + "\"\n" + R"(
    network: "analytical"
    every_step: true
    parameters { path: "workload.scenario.output_len" values: ["40"] }
  )");
  const Result e = run({"sweep", every.path()});
  ASSERT_EQ(e.code, kExitOk) << e.err;
  EXPECT_EQ(cell(csv(e.out), 0, "generation.simulated_steps"), "1-39");
  EXPECT_EQ(cell(csv(e.out), 0, "inputs.run.every_step"), "true");
}

}  // namespace
}  // namespace podsim::cli
