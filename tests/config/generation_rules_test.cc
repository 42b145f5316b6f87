// The rules of docs/inputs.md for a whole generation (scenario phase
// GENERATION): a prompt and output tokens, output_len in GENERATION only,
// the model's max_context_len, and the shape rules of both its steps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {
namespace generation_rules {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::valid_serving_workload;
using testing::workload_errors;

podsim::Workload generation(uint32_t prompt_len, uint32_t output_len) {
  podsim::Workload w = valid_serving_workload();
  podsim::Scenario& s = *w.mutable_scenario();
  s.set_phase(podsim::GENERATION);
  s.set_context_len(0);
  s.set_prompt_len(prompt_len);
  s.set_output_len(output_len);
  return w;
}

TEST(GenerationRulesTest, LoadsAsItsPrefillWithOutputTokens) {
  const WorkloadSpec spec = load_workload(generation(512, 64));
  const ScenarioSpec& s = spec.serving->scenario;
  EXPECT_TRUE(s.is_generation());
  EXPECT_EQ(s.phase, Phase::kPrefill);  // the step a generation starts with
  EXPECT_EQ(s.prompt_len, 512u);
  EXPECT_EQ(s.output_len, 64u);
  EXPECT_EQ(s.context_len, 0u);
  // A single step is not a generation.
  EXPECT_FALSE(load_workload(valid_serving_workload()).serving->scenario.is_generation());
}

TEST(GenerationRulesTest, NeedsAPromptAndOutputTokens) {
  EXPECT_THAT(workload_errors(generation(0, 0)),
              ElementsAre(IsDiagnostic("scenario.prompt_len",
                                       "must be >= 1: GENERATION starts with the prefill"),
                          IsDiagnostic("scenario.output_len",
                                       "must be >= 1: GENERATION generates output_len tokens")));
  // One output token: the prefill's alone.
  EXPECT_EQ(load_workload(generation(16, 1)).serving->scenario.output_len, 1u);
}

TEST(GenerationRulesTest, OutputLenOnlyInGeneration) {
  podsim::Workload w = valid_serving_workload();  // DECODE
  w.mutable_scenario()->set_output_len(32);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.output_len",
                                       "only GENERATION generates several tokens; a DECODE "
                                       "scenario is one step and would ignore it")));
  w.mutable_scenario()->set_phase(podsim::PREFILL);
  w.mutable_scenario()->set_prompt_len(8);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.output_len", "a PREFILL scenario is one step")));
}

TEST(GenerationRulesTest, CacheAtTheLastStepHasATypoGuard) {
  podsim::Workload w = generation(1u << 23, (1u << 23) + 1);  // exactly 2^24 cached at the end
  EXPECT_EQ(load_workload(w).serving->scenario.output_len, (1u << 23) + 1);
  w.mutable_scenario()->set_output_len((1u << 23) + 2);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.output_len",
                                       "context_len + prompt_len + output_len - 1 (the tokens in "
                                       "the KV cache after the last decode step) must be <= "
                                       "16777216 per sequence, got 16777217")));
}

TEST(GenerationRulesTest, SequencesStayWithinTheModelsMaxContext) {
  podsim::Workload w = generation(8000, 193);  // 8000 + 193 - 1 = 8192: fits exactly
  w.mutable_model()->set_max_context_len(8192);
  EXPECT_EQ(load_workload(w).serving->model.max_context_len, 8192u);
  w.mutable_scenario()->set_output_len(194);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.output_len",
                                       "each sequence reaches 8193 tokens (context_len + "
                                       "prompt_len + output_len - 1), past the model's "
                                       "max_context_len of 8192; at most 193 output tokens fit")));
  w.mutable_scenario()->set_prompt_len(9000);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("scenario.output_len",
                                                           "the prompt alone already does not")));
}

TEST(GenerationRulesTest, SingleStepsStayWithinTheModelsMaxContext) {
  podsim::Workload w = valid_serving_workload();  // DECODE at context 1024
  w.mutable_model()->set_max_context_len(1024);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.context_len",
                                       "the new token is at position 1025 of its sequence, past "
                                       "the model's max_context_len of 1024")));
  w.mutable_model()->set_max_context_len(1025);
  EXPECT_NO_THROW(load_workload(w));
  w.mutable_scenario()->set_phase(podsim::PREFILL);
  w.mutable_scenario()->set_prompt_len(2);
  EXPECT_THAT(workload_errors(w), ElementsAre(IsDiagnostic("scenario.prompt_len",
                                                           "each sequence reaches 1026 tokens")));
  w.mutable_model()->set_max_context_len((1u << 24) + 1);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("model.max_context_len", "must be <= 16777216")));
}

// Both steps must lower with the one sharding. 1D reduce-scatter splits a
// replica's tokens over the 8 tensor chips: a prefill's 4 x 16 split, the
// decode steps' 4 x 1 do not, and the error says it is theirs.
TEST(GenerationRulesTest, ShapeRulesOfTheDecodeStepsAreChecked) {
  podsim::Workload w = generation(16, 8);
  w.mutable_sharding()->set_tensor_collective(podsim::TENSOR_REDUCE_SCATTER_ALL_GATHER);
  EXPECT_THAT(workload_errors(w),
              ElementsAre(IsDiagnostic("scenario.batch",
                                       "TENSOR_REDUCE_SCATTER_ALL_GATHER splits each replica's 4 "
                                       "tokens per chip over")));
  EXPECT_THAT(workload_errors(w)[0].message,
              ::testing::EndsWith("(in the generation's decode steps)"));
  // A rule both steps break is reported once, without the note.
  w.mutable_model()->set_heads(12);
  w.mutable_model()->set_kv_heads(4);
  const auto errors = workload_errors(w);
  EXPECT_EQ(std::count_if(errors.begin(), errors.end(),
                          [](const Diagnostic& d) { return d.field == "model.heads"; }),
            1);
}

}  // namespace generation_rules
}  // namespace
}  // namespace podsim::config
