// Speculative decoding (docs/serving.md, "Speculative decoding"): the
// acceptance model against its closed form, k = 0 against plain decoding
// bit for bit, acceptance 0 costing exactly the wasted verification work,
// and runs on a small real pod with a multi-token-prediction draft and a
// draft model of its own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "config/serve_loader.h"
#include "fleet/serve.h"
#include "fleet/serve_output.h"
#include "fleet/speculation.h"
#include "fleet/speculative_timer.h"
#include "fleet_fixture.h"

namespace podsim::fleet {
namespace speculative_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

TEST(Acceptance, ExpectedTokensMatchTheClosedForm) {
  for (const double a : {0.0, 0.25, 0.6, 0.85, 0.999, 1.0}) {
    for (uint32_t k = 1; k <= 8; ++k) {
      const Acceptance acc(std::vector<double>(k, a));
      const double closed = expected_tokens_closed_form(a, k);
      EXPECT_NEAR(acc.expected_tokens(), closed, 1e-12 * closed) << "a " << a << ", k " << k;
    }
  }
  EXPECT_DOUBLE_EQ(expected_tokens_closed_form(0.5, 2), 1.75);  // 1 + 1/2 + 1/4
  // Per position: 1 + 0.9 + 0.9 x 0.5.
  EXPECT_DOUBLE_EQ(Acceptance({0.9, 0.5}).expected_tokens(), 2.35);
}

TEST(Acceptance, DrawsAverageToTheExpectation) {
  for (const std::vector<double>& p :
       {std::vector<double>{0.7, 0.7, 0.7, 0.7}, std::vector<double>{0.9, 0.6, 0.3}}) {
    const Acceptance acc(p);
    Rng rng(11);
    constexpr int kDraws = 200000;
    double sum = 0;
    double sq = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double t = acc.draw(rng) + 1.0;
      sum += t;
      sq += t * t;
    }
    const double mean = sum / kDraws;
    const double sd = std::sqrt(sq / kDraws - mean * mean);
    EXPECT_NEAR(mean, acc.expected_tokens(), 5 * sd / std::sqrt(kDraws));
  }
}

TEST(Acceptance, CertainEdgesDrawNoRandomNumbers) {
  Rng a(1);
  Rng b(1);
  EXPECT_EQ(Acceptance({0.0, 0.0}).draw(a), 0u);
  EXPECT_EQ(Acceptance({1.0, 1.0, 1.0}).draw(a), 3u);
  EXPECT_EQ(a.uniform(), b.uniform()) << "no draw was used";
}

// Formula timers: verification (a prefill shape), draft and target.
struct Timers {
  testing::LinearTimer target;
  testing::LinearTimer verify;
  testing::LinearTimer draft;
  Timers() { draft.fixed_us = 200; }
  SpeculativeParts parts(uint32_t k) {
    SpeculativeParts p;
    p.target = &target;
    p.verify = &verify;
    p.draft = &draft;
    p.draft_tokens = k;
    return p;
  }
};

TEST(SpeculativeTimer, AStepIsTheDraftsTheVerificationAndThePrefillInTurn) {
  Timers t;
  SpeculativeTimer timer(t.parts(3));
  StepShape s;
  s.decode_sequences = 4;
  s.decode_context_tokens = 4000;
  s.prefill_sequences = 1;
  s.prefill_tokens = 100;
  const StepShape v = timer.verification(s);
  EXPECT_EQ(v.prefill_sequences, 4u);
  EXPECT_EQ(v.prefill_tokens, 16u);  // 4 x (3 + 1)
  EXPECT_EQ(v.prefill_context_tokens, 4000u);
  StepShape prefill;
  prefill.prefill_sequences = 1;
  prefill.prefill_tokens = 100;
  sim::Time expect =
      t.verify.step_time(v) + t.target.step_time(prefill) + t.draft.step_time(prefill);
  for (uint64_t i = 0; i < 3; ++i) {
    StepShape d;
    d.decode_sequences = 4;
    d.decode_context_tokens = 4000 + 4 * i;  // the draft grows its cache as it goes
    expect += t.draft.step_time(d);
  }
  EXPECT_EQ(timer.step_time(s), expect);
}

// 200 requests waiting at once, prompts short enough that a step's token
// budget never cuts an admission (16 x 190 < 4096 - 16 x 5): the schedule
// then depends on the scheduler's state alone, not on step times.
config::ArrivalSpec two_hundred_requests() {
  std::vector<testing::TestRequest> reqs;
  for (int i = 0; i < 200; ++i)
    reqs.push_back(
        {0, static_cast<uint32_t>(100 + 9 * (i % 11)), static_cast<uint32_t>(20 + 13 * (i % 7))});
  return testing::trace_of(reqs);
}

FleetRun run_fleet(StepTimer& timer, std::vector<double> acceptance) {
  FleetSetup setup;
  ReplicaSetup r = testing::replica(timer, config::SchedulerKind::kContinuous, 16, 4096, 100000);
  r.limits.decode_tokens = static_cast<uint32_t>(acceptance.size()) + 1;
  r.acceptance = std::move(acceptance);
  r.acceptance_seed = 5;
  setup.replicas.push_back(r);
  setup.arrivals = make_arrival_process(two_hundred_requests(), 1);
  setup.record_steps = true;
  return simulate(std::move(setup));
}

// Acceptance 0: every verification keeps only the target's own token, so the
// schedule is plain decoding's, and the run is longer by exactly each step's
// speculative cost less its plain cost: throughput falls by exactly the
// wasted verification (and drafting) work.
TEST(SpeculativeFleet, AtAcceptanceZeroTheRunPaysExactlyTheWastedVerificationWork) {
  Timers t;
  const FleetRun plain = run_fleet(t.target, {});
  SpeculativeTimer spec(t.parts(4));
  const FleetRun zero = run_fleet(spec, {0, 0, 0, 0});
  ASSERT_EQ(plain.steps[0].size(), zero.steps[0].size());
  sim::Time expected;
  for (size_t i = 0; i < plain.steps[0].size(); ++i) {
    ASSERT_EQ(plain.steps[0][i].shape, zero.steps[0][i].shape) << "step " << i;
    expected += spec.step_time(plain.steps[0][i].shape);
  }
  sim::Time plain_busy;
  for (const StepRecord& s : plain.steps[0])
    plain_busy += s.end - s.start;
  EXPECT_EQ(zero.replicas[0].busy, expected);
  EXPECT_EQ(zero.end, expected) << "never idle: every request waits from the start";
  EXPECT_GT(zero.replicas[0].busy, plain_busy);
  EXPECT_EQ(zero.replicas[0].verified_tokens, zero.replicas[0].verifications);
  EXPECT_EQ(zero.replicas[0].accepted_drafts, 0u);
  EXPECT_EQ(zero.replicas[0].decode_tokens, plain.replicas[0].decode_tokens);
  for (size_t i = 0; i < plain.requests.size(); ++i)
    ASSERT_TRUE(zero.requests[i].done && !zero.requests[i].rejected);
}

TEST(SpeculativeFleet, TokensPerVerificationFollowTheClosedForm) {
  Timers t;
  SpeculativeTimer spec(t.parts(4));
  // One long request: every verification but its last keeps all it drew.
  FleetSetup setup;
  ReplicaSetup r = testing::replica(spec, config::SchedulerKind::kContinuous, 4, 4096, 100000);
  r.limits.decode_tokens = 5;
  r.acceptance = {0.8, 0.8, 0.8, 0.8};
  r.acceptance_seed = 3;
  setup.replicas.push_back(r);
  setup.arrivals = make_arrival_process(testing::trace_of({{0, 10, 200000}}), 1);
  const FleetRun run = simulate(std::move(setup));
  const ReplicaTotals& tot = run.replicas[0];
  ASSERT_TRUE(run.requests[0].done);
  const double mean = static_cast<double>(tot.verified_tokens) / tot.verifications;
  const double expect = expected_tokens_closed_form(0.8, 4);  // 3.3616
  // Tokens per verification lie in [1, 5]: sd <= 2.
  EXPECT_NEAR(mean, expect, 5 * 2 / std::sqrt(static_cast<double>(tot.verifications)));
  EXPECT_EQ(tot.verified_tokens, 200000u - 1) << "the prefill produced the first";
  EXPECT_EQ(tot.drafted_tokens, 4 * tot.verifications);
}

std::string serve_text(const std::string& speculative, const std::string& extra = "") {
  const std::string dir = (source_dir() / "workloads/serve").string();
  return "replicas { topology: \"" + (source_dir() / "topologies/v5e-2x2.textproto").string() +
         "\" workload: \"" + dir +
         "/llama3-8b-v5e-2x2.textproto\" max_batch: 16 max_tokens_per_step: 2048 " + speculative +
         " }\n" + extra +
         "arrivals { poisson { rate_per_s: 2 } prompt_tokens { fixed: 500 } output_tokens { "
         "fixed: 100 } }\n"
         "requests: 40 seed: 3\n";
}

ServeOutput run_text(const std::string& text) {
  const config::ServeSpec spec = config::parse_serve_text(text, "test.serve", source_dir());
  return serve(spec);
}

TEST(SpeculativeServe, ZeroDraftTokensIsPlainDecodingBitForBit) {
  const std::string plain = serve_text("");
  const std::string zero = serve_text("speculative { draft_tokens: 0 }");
  const config::ServeSpec a = config::parse_serve_text(plain, "t", source_dir());
  const config::ServeSpec b = config::parse_serve_text(zero, "t", source_dir());
  const ServeOutput oa = serve(a);
  const ServeOutput ob = serve(b);
  EXPECT_EQ(requests_csv(oa), requests_csv(ob));
  // The two serve files differ by the line that says draft_tokens: 0, and so
  // do their SHA-256 in the summaries' inputs (issue 32); nothing else does.
  podsim::output::ServeReport ra = make_report(a, oa);
  podsim::output::ServeReport rb = make_report(b, ob);
  EXPECT_NE(ra.inputs().sha256(), rb.inputs().sha256());
  rb.mutable_inputs()->set_sha256(ra.inputs().sha256());
  EXPECT_EQ(summary_csv(ra), summary_csv(rb));
  EXPECT_EQ(oa.run.fingerprint, ob.run.fingerprint);
}

TEST(SpeculativeServe, AnMtpDraftShortensTpotAndTheDraftCostsKvCache) {
  const ServeOutput plain = run_text(serve_text(""));
  const ServeOutput mtp =
      run_text(serve_text("speculative { draft_tokens: 2 acceptance_rate: 0.85 mtp_layers: 1 }"));
  EXPECT_EQ(mtp.summary.completed, 40u);
  EXPECT_LT(mtp.summary.tpot_s.p50, 0.8 * plain.summary.tpot_s.p50);
  EXPECT_GT(mtp.summary.speculation.tokens_per_verification, 2.2);
  EXPECT_LT(mtp.summary.speculation.tokens_per_verification, 2.9);  // 2.5725 expected
  // The MTP layer's weights and cache take HBM from the target's cache.
  EXPECT_GT(mtp.replicas[0].kv.weight_bytes, plain.replicas[0].kv.weight_bytes);
  EXPECT_GT(mtp.replicas[0].kv.kv_bytes_per_token, plain.replicas[0].kv.kv_bytes_per_token);
  EXPECT_LT(mtp.replicas[0].kv.blocks, plain.replicas[0].kv.blocks);
  EXPECT_TRUE(mtp.summary.energy_modelled);
  // More simulations: the draft's steps and the verification passes.
  EXPECT_GT(mtp.summary.buckets.simulated_steps, plain.summary.buckets.simulated_steps);
}

TEST(SpeculativeServe, ADraftOnItsOwnSliceAddsItsChipsAndItsIdlePower) {
  const std::string dir = (source_dir() / "workloads/serve").string();
  const std::string topo = (source_dir() / "topologies/v5e-2x2.textproto").string();
  const ServeOutput own = run_text(
      serve_text("speculative { draft_tokens: 3 acceptance_rate: 0.6 draft_workload: \"" + dir +
                 "/llama3-8b-v5e-2x2.textproto\" draft_topology: \"" + topo + "\" }"));
  const ServeOutput shared =
      run_text(serve_text("speculative { draft_tokens: 3 acceptance_rate: 0.6 draft_workload: \"" +
                          dir + "/llama3-8b-v5e-2x2.textproto\" }"));
  EXPECT_EQ(own.summary.chips, 8u);
  EXPECT_EQ(shared.summary.chips, 4u);
  // On its own slice the target keeps its whole cache; sharing, an 8B draft
  // halves what is left.
  EXPECT_GT(own.replicas[0].kv.blocks, shared.replicas[0].kv.blocks);
  // Same step times (each side alone on identical slices): the own-slice run
  // draws more energy, its idle slice's static power.
  EXPECT_EQ(own.summary.speculation.verifications, shared.summary.speculation.verifications);
  EXPECT_GT(own.summary.energy_j, shared.summary.energy_j);
}

TEST(SpeculativeServe, VerificationScoresEveryToken) {
  const config::ServeSpec spec =
      config::parse_serve_text(serve_text(""), "test.serve", source_dir());
  const EngineReplica engine(spec.replicas[0], net::Model::kAnalytical);
  config::ScenarioSpec s;
  s.phase = config::Phase::kPrefill;
  s.batch = 8;
  s.prompt_len = 5;
  s.context_len = 1000;
  const StepCost last_only = engine.cost(s);
  s.score_every_token = true;
  const StepCost every = engine.cost(s);
  EXPECT_GT(every.time, last_only.time);
}

}  // namespace speculative_test
}  // namespace podsim::fleet
