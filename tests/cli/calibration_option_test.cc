// --calibration FILE end to end, in-process: a profile slows a run the way
// its knobs say and the JSON and CSV name it; a profile for another chip, or
// a profile file that is missing, exits 2 with a message and writes no --out
// file; a sweep applies it to every point; validate checks profile files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"
#include "report/result_print.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

std::string path(const std::string& relative) {
  return (root() / relative).string();
}

const std::string kV5e = "topologies/calibration/v5e.textproto";

// A small serving step: LLaMA-3-8B decode on a v5e 4x4, on the analytical network.
std::vector<std::string> run_args(std::vector<std::string> extra) {
  std::vector<std::string> args = {"run",
                                   "-t",
                                   path("topologies/v5e-4x4.textproto"),
                                   "-w",
                                   path("workloads/llama3-8b-decode-v5e.textproto"),
                                   "--network",
                                   "analytical",
                                   "--format",
                                   "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string cell(const report::CsvDocument& d, size_t row, const std::string& column) {
  const int k = d.column(column);
  EXPECT_GE(k, 0) << "no column " << column;
  return k < 0 ? "" : d.rows.at(row).cells.at(static_cast<size_t>(k));
}

TEST(CalibrationOption, V5eProfileSlowsTheStepAndTheResultNamesIt) {
  const Result ideal = run(run_args({}));
  ASSERT_EQ(ideal.code, kExitOk) << ideal.err;
  const Result calibrated = run(run_args({"--calibration", path(kV5e)}));
  ASSERT_EQ(calibrated.code, kExitOk) << calibrated.err;
  const podsim::Result a = testing::parse_result(ideal.out);
  const podsim::Result b = testing::parse_result(calibrated.out);
  // Every knob the profile sets is a loss: the step can only take longer.
  EXPECT_GT(b.serving().step_time_us(), a.serving().step_time_us());
  const auto& cal = b.inputs().topology().calibration();
  EXPECT_EQ(cal.profile(), "v5e-microbenchmarks");
  EXPECT_EQ(cal.profile_file(), path(kV5e));
  EXPECT_EQ(cal.profile_sha256().size(), 64U);
  EXPECT_FALSE(cal.replaced_topology_calibration());
  EXPECT_DOUBLE_EQ(cal.ici_link_efficiency(), 0.746);
  EXPECT_DOUBLE_EQ(cal.mxu_efficiency(), 0.92322);
  EXPECT_DOUBLE_EQ(cal.hbm_efficiency(), 0.873852);
  EXPECT_DOUBLE_EQ(cal.collective_overhead_ns(), 2365);
  EXPECT_THAT(cal.source(), HasSubstr("How to Scale Your Model"));
  // Ideal stays the default: no profile named without the option.
  EXPECT_EQ(a.inputs().topology().calibration().profile(), "");
  EXPECT_DOUBLE_EQ(a.inputs().topology().calibration().ici_link_efficiency(), 1.0);
}

TEST(CalibrationOption, CsvNamesTheProfile) {
  std::vector<std::string> args = run_args({"--calibration", path(kV5e)});
  args[8] = "csv";  // --format
  const Result r = run(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = report::parse_csv(r.out, "<stdout>");
  ASSERT_EQ(d.rows.size(), 1U);
  EXPECT_EQ(cell(d, 0, "inputs.topology.calibration.profile"), "v5e-microbenchmarks");
  EXPECT_EQ(cell(d, 0, "inputs.topology.calibration.profile_file"), path(kV5e));
  EXPECT_EQ(cell(d, 0, "inputs.topology.calibration.ici_link_efficiency"), "0.746");
}

TEST(CalibrationOption, TheMeasuredAllGatherIsReproduced) {
  // The fit of topologies/calibration/v5e.textproto, end to end: the scaling book's
  // AllGathers take 680 us and about 8 us on the v5e 8x4 slice.
  const Result r =
      run({"run", "-w", path("topologies/calibration/fits/v5e-allgather-line4.textproto"), "-t",
           path("topologies/v5e-4x4.textproto"), "--set", "topology.torus.dims[0].size=8",
           "--calibration", path(kV5e), "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const podsim::Result result = testing::parse_result(r.out);
  ASSERT_EQ(result.op_list().operations_size(), 2);
  EXPECT_NEAR(result.op_list().operations(0).time_us(), 680, 0.5);
  EXPECT_NEAR(result.op_list().operations(1).time_us(), 8, 0.05);
}

TEST(CalibrationOption, ProfileForAnotherChipExitsTwoNamingBoth) {
  const fs::path out = fs::temp_directory_path() / "podsim_calibration_test_chip.json";
  fs::remove(out);
  const Result r = run({"run", "-t", path("topologies/v4-4x4x4.textproto"), "--calibration",
                        path(kV5e), "--out", out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, AllOf(HasSubstr(path(kV5e) + ":"), HasSubstr("chip"), HasSubstr("\"TPU v5e\""),
                           HasSubstr("\"TPU v4\"")));
  EXPECT_FALSE(fs::exists(out));
}

TEST(CalibrationOption, MissingProfileExitsTwoAndWritesNoHalfFile) {
  const fs::path out = fs::temp_directory_path() / "podsim_calibration_test_missing.out";
  fs::remove(out);
  const std::string missing = (fs::temp_directory_path() / "no-such-profile.textproto").string();
  const Result table = run({"run", "--calibration", missing, "--out", out.string()});
  EXPECT_EQ(table.code, kExitBadInput);
  EXPECT_THAT(table.err, AllOf(HasSubstr(missing), HasSubstr("cannot read file")));
  EXPECT_FALSE(fs::exists(out));
  // A machine-readable format gets a whole result saying why, as for any
  // input that does not load.
  const Result json =
      run({"run", "--calibration", missing, "--format", "json", "--out", out.string()});
  EXPECT_EQ(json.code, kExitBadInput);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  const podsim::Result result = testing::parse_result(text.str());
  EXPECT_EQ(result.status(), podsim::Result::invalid);
  EXPECT_THAT(result.reason(), HasSubstr(missing));
  fs::remove(out);
}

TEST(CalibrationOption, ReplacesATopologysOwnCalibrationWholeWithAWarning) {
  const fs::path topology = fs::temp_directory_path() / "podsim_calibration_test_own.textproto";
  {
    std::ifstream in(path("topologies/v5e-4x4.textproto"));
    std::stringstream text;
    text << in.rdbuf() << "calibration { dcn_efficiency: 0.5 source: \"mine\" }\n";
    std::ofstream(topology) << text.str();
  }
  std::vector<std::string> args = run_args({"--calibration", path(kV5e)});
  args[2] = topology.string();  // -t
  const Result r = run(args);
  fs::remove(topology);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("replaces the calibration"), HasSubstr("mine")));
  const podsim::Result result = testing::parse_result(r.out);
  const auto& cal = result.inputs().topology().calibration();
  EXPECT_TRUE(cal.replaced_topology_calibration());
  EXPECT_DOUBLE_EQ(cal.dcn_efficiency(), 1.0);  // the profile's, not merged with the file's
  EXPECT_EQ(cal.profile(), "v5e-microbenchmarks");
}

TEST(CalibrationOption, BesideASetOfTheCalibrationIsRefused) {
  const Result r =
      run(run_args({"--calibration", path(kV5e), "--set", "topology.calibration.mxu_efficiency=0.5",
                    "--set", "topology.calibration.source=mine"}));
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("give one or the other"));
}

TEST(CalibrationOption, SweepAppliesTheProfileToEveryPoint) {
  const fs::path sweep = fs::temp_directory_path() / "podsim_calibration_test_sweep.textproto";
  std::ofstream(sweep) << "topology: \"" << path("topologies/v5e-4x4.textproto") << "\"\n"
                       << "workload: \"" << path("workloads/llama3-8b-decode-v5e.textproto")
                       << "\"\nnetwork: \"analytical\"\n"
                       << "parameters { path: \"workload.scenario.batch\" values: [\"16\", \"64\"] "
                          "}\n";
  const Result ideal = run({"sweep", sweep.string()});
  const Result calibrated = run({"sweep", sweep.string(), "--calibration", path(kV5e)});
  fs::remove(sweep);
  ASSERT_EQ(ideal.code, kExitOk) << ideal.err;
  ASSERT_EQ(calibrated.code, kExitOk) << calibrated.err;
  const report::CsvDocument a = report::parse_csv(ideal.out, "ideal");
  const report::CsvDocument b = report::parse_csv(calibrated.out, "calibrated");
  ASSERT_EQ(a.rows.size(), 2U);
  ASSERT_EQ(b.rows.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(cell(a, i, "inputs.topology.calibration.profile"), "");
    EXPECT_EQ(cell(b, i, "inputs.topology.calibration.profile"), "v5e-microbenchmarks");
    EXPECT_EQ(cell(b, i, "status"), "ok");
    EXPECT_GT(std::stod(cell(b, i, "serving.step_time_us")),
              std::stod(cell(a, i, "serving.step_time_us")));
  }
  // Each point is what `podsim run --calibration` gives for it.
  std::vector<std::string> args =
      run_args({"--calibration", path(kV5e), "--set", "workload.scenario.batch=64"});
  const podsim::Result point = testing::parse_result(run(args).out);
  EXPECT_DOUBLE_EQ(std::stod(cell(b, 1, "serving.step_time_us")), point.serving().step_time_us());
}

TEST(CalibrationOption, SweepPointOfAnotherChipIsInvalidWithTheReason) {
  const fs::path sweep = fs::temp_directory_path() / "podsim_calibration_test_chips.textproto";
  std::ofstream(sweep) << "network: \"analytical\"\n"
                       << "parameters { path: \"topology\" values: [\""
                       << path("topologies/v5e-16x16.textproto") << "\", \""
                       << path("topologies/v4-4x4x4.textproto") << "\"] }\n";
  const Result r = run({"sweep", sweep.string(), "--calibration", path(kV5e)});
  fs::remove(sweep);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const report::CsvDocument d = report::parse_csv(r.out, "<stdout>");
  ASSERT_EQ(d.rows.size(), 2U);
  EXPECT_EQ(cell(d, 0, "status"), "ok");
  EXPECT_EQ(cell(d, 1, "status"), "invalid");
  EXPECT_THAT(cell(d, 1, "reason"), HasSubstr("\"TPU v4\""));
}

TEST(CalibrationOption, ValidateChecksProfiles) {
  const Result r = run({"validate", path(kV5e), path("topologies/calibration/v4.textproto")});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("ok (calibration profile 'v5e-microbenchmarks' for chip \"TPU v5e\")"));
}

TEST(CalibrationOption, HelpNamesTheOption) {
  for (const char* command : {"run", "sweep", "search"}) {
    SCOPED_TRACE(command);
    const Result r = run({command, "--help"});
    EXPECT_EQ(r.code, kExitOk);
    EXPECT_THAT(r.out, HasSubstr("--calibration"));
  }
}

}  // namespace
}  // namespace podsim::cli
