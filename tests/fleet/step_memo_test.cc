// The step-time memo (fleet/step_memo.h): one oracle call per bucket, counts
// rounded up, and, on a small real pod, bucketed step times against
// unbucketed ones within the error bound the memo measures; a request's
// latency with no queue equals its own steps' pod simulations.
#include "fleet/step_memo.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "config/serve_loader.h"
#include "fleet/engine_oracle.h"
#include "fleet/serve.h"
#include "study/evaluate.h"

namespace podsim::fleet {
namespace step_memo_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

TEST(StepMemo, AsksTheOracleOncePerBucketWithCountsRoundedUp) {
  std::vector<config::ScenarioSpec> asked;
  StepMemo memo(
      [&](const config::ScenarioSpec& s) {
        asked.push_back(s);
        return sim::Time::us(100 + s.batch + s.context_len);
      },
      MemoOptions{8, 8, 1, false});
  // Decodes of 33 and 34 sequences at mean contexts 1000 and 1010 share a
  // bucket: batch 36, context 1024.
  const sim::Time a = memo.step_time(StepShape{0, 0, 0, 33, 33 * 1000});
  const sim::Time b = memo.step_time(StepShape{0, 0, 0, 34, 34 * 1010});
  EXPECT_EQ(a, b);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].phase, config::Phase::kDecode);
  EXPECT_EQ(asked[0].batch, 36u);
  EXPECT_EQ(asked[0].context_len, 1024u);
  // A mixed step is its prefill part plus its decode part.
  const sim::Time mixed = memo.step_time(StepShape{2, 600, 0, 33, 33 * 1000});
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[1].phase, config::Phase::kPrefill);
  EXPECT_EQ(asked[1].batch, 2u);
  EXPECT_EQ(asked[1].prompt_len, 320u);  // 300 rounded up
  EXPECT_EQ(mixed, a + sim::Time::us(100 + 2 + 0));
  EXPECT_EQ(memo.stats().entries, 2u);
}

TEST(StepMemo, BatchesAreMultiplesOfTheQuantum) {
  StepMemo memo([](const config::ScenarioSpec& s) { return sim::Time::us(s.batch); },
                MemoOptions{8, 8, 16, false});
  EXPECT_EQ(memo.decode_scenario(StepShape{0, 0, 0, 3, 30}).batch, 16u);
  EXPECT_EQ(memo.decode_scenario(StepShape{0, 0, 0, 17, 170}).batch, 32u);
}

TEST(StepMemo, MeasuresTheGapToEachBucketsLowerEdge) {
  StepMemo memo([](const config::ScenarioSpec& s) { return sim::Time::us(1000 + s.context_len); },
                MemoOptions{8, 8, 1, true});
  (void)memo.step_time(StepShape{0, 0, 0, 1, 1000});  // context bucket (960, 1024]
  EXPECT_EQ(memo.stats().oracle_calls, 2u);
  EXPECT_NEAR(memo.stats().max_relative_error, (1024.0 - 961) / (1000 + 1024), 1e-12);
}

// The pod simulation of LLaMA-3-8B on a v5e 2x2 slice (the shipped example).
class RealPod : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ =
        config::load_serve_file(source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto");
    engine_ = std::make_unique<EngineReplica>(spec_.replicas[0], net::Model::kAnalytical);
  }
  config::ServeSpec spec_;
  std::unique_ptr<EngineReplica> engine_;
};

TEST_F(RealPod, BucketedStepTimesAreWithinTheMeasuredBoundOfUnbucketedOnes) {
  StepMemo bucketed(engine_->oracle(), MemoOptions{8, 8, 1, true});
  StepMemo exact(engine_->oracle(), MemoOptions{1u << 16, 1u << 16, 1, false});
  std::vector<StepShape> shapes;
  for (uint32_t batch : {1u, 3u, 9u, 17u, 37u, 61u})
    for (uint64_t context : {5u, 100u, 777u, 3000u})
      shapes.push_back(StepShape{0, 0, 0, batch, batch * context});
  for (uint32_t seqs : {1u, 3u})
    for (uint64_t tokens : {17u, 300u, 1900u})
      shapes.push_back(StepShape{seqs, seqs * tokens, seqs * 130u, 0, 0});
  shapes.push_back(StepShape{2, 1500, 0, 40, 40 * 900});  // mixed
  for (const StepShape& s : shapes)
    (void)bucketed.step_time(s);
  const double bound = bucketed.stats().max_relative_error;
  EXPECT_GT(bound, 0);
  EXPECT_LT(bound, 0.2) << "8 steps per octave keep steps within a few percent here";
  for (const StepShape& s : shapes) {
    const double b = bucketed.step_time(s).to_us();
    const double e = exact.step_time(s).to_us();
    EXPECT_GE(b, e) << "buckets round up";
    EXPECT_LE((b - e) / b, bound + 1e-9) << s.decode_sequences << " " << s.prefill_tokens;
  }
}

TEST_F(RealPod, WithNoQueueALatencyIsItsOwnStepsSimulated) {
  config::ServeSpec spec = spec_;
  spec.replicas.resize(1);
  spec.replicas[0].count = 1;
  spec.buckets.batch_steps_per_octave = 1u << 16;  // unbucketed
  spec.buckets.length_steps_per_octave = 1u << 16;
  spec.duration = sim::Time::max();
  spec.arrivals = config::ArrivalSpec{};
  spec.arrivals.kind = config::ArrivalKind::kTrace;
  spec.arrivals.trace = {
      {sim::Time::s(0), 700, 6}, {sim::Time::s(50), 64, 3}, {sim::Time::s(100), 2000, 2}};
  const ServeOutput out = serve(spec);
  ASSERT_EQ(out.run.requests.size(), 3u);
  for (const RequestRecord& q : out.run.requests) {
    config::ScenarioSpec s;
    s.phase = config::Phase::kPrefill;
    s.batch = 1;
    s.prompt_len = q.prompt_tokens;
    sim::Time want = engine_->step_time(s);
    EXPECT_EQ(q.first_token - q.arrival, want);
    for (uint32_t k = 0; k + 1 < q.output_tokens; ++k) {
      config::ScenarioSpec d;
      d.phase = config::Phase::kDecode;
      d.batch = 1;
      d.context_len = q.prompt_tokens + k;
      want += engine_->step_time(d);
    }
    EXPECT_EQ(q.finish - q.arrival, want);
  }
}

// Issue 14 point 6: with no queue, every request's latency is the study
// layer's whole-generation figure (every decode step simulated).
TEST_F(RealPod, WithNoQueueALatencyIsTheWholeGenerationFigure) {
  config::ServeSpec spec = spec_;
  spec.replicas.resize(1);
  spec.replicas[0].count = 1;
  spec.buckets.batch_steps_per_octave = 1u << 16;  // unbucketed
  spec.buckets.length_steps_per_octave = 1u << 16;
  spec.duration = sim::Time::max();
  spec.arrivals = config::ArrivalSpec{};
  spec.arrivals.kind = config::ArrivalKind::kTrace;
  spec.arrivals.trace = {{sim::Time::s(0), 900, 12}, {sim::Time::s(60), 33, 40}};
  const ServeOutput out = serve(spec);
  ASSERT_EQ(out.run.requests.size(), 2u);
  for (const RequestRecord& q : out.run.requests) {
    config::WorkloadSpec w = spec.replicas[0].workload;
    config::ScenarioSpec& s = w.serving->scenario;
    s.phase = config::Phase::kPrefill;
    s.batch = 1;
    s.prompt_len = q.prompt_tokens;
    s.context_len = 0;
    s.output_len = q.output_tokens;
    study::RunOptions options;
    options.network.model = net::Model::kAnalytical;
    options.allow_oom = true;
    options.generation.every_step = true;
    const podsim::Result r = study::evaluate(topo::Pod(spec.replicas[0].pod), w, options);
    ASSERT_EQ(r.status(), podsim::Result::ok) << r.reason();
    EXPECT_NEAR((q.first_token - q.arrival).to_us(), r.generation().ttft_us(), 1e-6);
    EXPECT_NEAR((q.finish - q.arrival).to_us(), r.generation().total_us(), 1e-6);
  }
}

}  // namespace step_memo_test
}  // namespace podsim::fleet
