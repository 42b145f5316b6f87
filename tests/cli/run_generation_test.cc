// `podsim run` on a whole generation (scenario phase GENERATION): the table
// shows the generation's figures and which decode steps were simulated, the
// CSV and JSON carry them, --every-step simulates all, and a bad
// --step-tolerance or input is refused with exit 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"
#include "result_json.h"

namespace podsim::cli {
namespace {
namespace run_generation {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;

// The shipped generation, shortened to 40 output tokens.
std::vector<std::string> args(std::vector<std::string> more) {
  std::vector<std::string> a = {"run",
                                "-t",
                                (root() / "topologies/v5e-4x4.textproto").string(),
                                "-w",
                                (root() / "workloads/llama3-8b-generation-v5e.textproto").string(),
                                "--set",
                                "workload.scenario.output_len=40",
                                "-n",
                                "analytical"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

TEST(RunGeneration, TableShowsTheGenerationAndItsSimulatedSteps) {
  const Result r = run(args({}));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("generation: 40 tokens per sequence after a 2048-token prompt"));
  EXPECT_THAT(r.out, HasSubstr("time to first token"));
  EXPECT_THAT(r.out, HasSubstr("(39 decode steps, context 2048 .. 2086)"));
  EXPECT_THAT(r.out, HasSubstr("MFU over the generation"));
  EXPECT_THAT(r.out,
              HasSubstr("decode steps simulated   5 of 39 by bisection (steps 1;10;20;29;39)"));
  EXPECT_THAT(r.out, HasSubstr("last decode step: LLaMA-3-8B decode, batch 64, context 2086"));
  const Result every = run(args({"--every-step"}));
  ASSERT_EQ(every.code, kExitOk) << every.err;
  EXPECT_THAT(every.out, HasSubstr("decode steps simulated   every step (39)"));
}

TEST(RunGeneration, CsvAndJsonCarryTheGenerationColumns) {
  const Result csv = run(args({"-f", "csv"}));
  ASSERT_EQ(csv.code, kExitOk) << csv.err;
  const report::CsvDocument table = report::parse_csv(csv.out, "run.csv");
  ASSERT_EQ(table.rows.size(), 1u);
  const auto cell = [&](const std::string& column) {
    const int i = table.column(column);
    EXPECT_GE(i, 0) << column;
    return i < 0 ? std::string() : table.rows[0].cells[static_cast<size_t>(i)];
  };
  EXPECT_EQ(cell("inputs.serving.scenario.phase"), "generation");
  EXPECT_EQ(cell("inputs.serving.scenario.output_len"), "40");
  EXPECT_EQ(cell("inputs.run.every_step"), "false");
  EXPECT_EQ(cell("generation.steps_mode"), "bisection");
  EXPECT_EQ(cell("generation.simulated_steps"), "1;10;20;29;39");
  EXPECT_EQ(cell("generation.decode_steps"), "39");
  EXPECT_GT(std::stod(cell("generation.ttft_us")), 0);
  EXPECT_GT(std::stod(cell("generation.tpot_mean_us")), 0);
  const Result json = run(args({"-f", "json", "--step-tolerance", "0.01"}));
  ASSERT_EQ(json.code, kExitOk) << json.err;
  const podsim::Result result = testing::parse_result(json.out);
  EXPECT_DOUBLE_EQ(result.generation().step_tolerance(), 0.01);
  EXPECT_DOUBLE_EQ(result.inputs().run().step_tolerance(), 0.01);
  EXPECT_EQ(result.generation().simulated_contexts_size(), 5);
}

TEST(RunGeneration, BadToleranceAndInputsExitTwo) {
  const Result neg = run(args({"--step-tolerance", "-0.1"}));
  EXPECT_EQ(neg.code, kExitBadInput);
  EXPECT_THAT(neg.err, HasSubstr("--step-tolerance"));
  const Result zero = run(args({"--set", "workload.scenario.output_len=0"}));
  EXPECT_EQ(zero.code, kExitBadInput);
  EXPECT_THAT(zero.err, HasSubstr("llama3-8b-generation-v5e.textproto"));
  EXPECT_THAT(zero.err, HasSubstr("scenario.output_len: must be >= 1"));
  const Result past = run(args({"--set", "workload.scenario.output_len=7000"}));
  EXPECT_EQ(past.code, kExitBadInput);
  EXPECT_THAT(past.err, HasSubstr("scenario.output_len: each sequence reaches 9047 tokens"));
  EXPECT_THAT(past.err, HasSubstr("at most 6145 output tokens fit"));
  // The generation's flags on a single step would be ignored: refused.
  const Result step =
      run({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
           (root() / "workloads/llama3-8b-decode-v5e.textproto").string(), "--every-step"});
  EXPECT_EQ(step.code, kExitBadInput);
  EXPECT_THAT(step.err, HasSubstr("--every-step applies to a scenario of phase GENERATION only"));
}

}  // namespace run_generation
}  // namespace
}  // namespace podsim::cli
