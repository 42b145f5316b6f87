// The search against brute force: on a small slice, the frontier the search
// returns (pruned on step-time bounds and on the analytical model) is
// exactly the frontier of every configuration simulated on the flow model;
// every bound is below both simulations; candidates the loader rejects
// never reach a simulation; the result does not depend on --jobs.
#include "search/search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "config/pricing_loader.h"
#include "config/serving_candidate.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "search/pareto.h"
#include "shipped.h"

namespace podsim::search {
namespace {

struct Case {
  const char* label;
  const char* model;
  config::Phase phase;
  uint32_t context;
  uint32_t prompt;
};

class SearchVsBruteForce : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    model_ = std::make_unique<config::ServingModel>(
        config::ServingModel::load(testing::source_dir() / "workloads" / c.model));
    slices_ = {{config::load_topology_file(testing::source_dir() / "topologies/v5e-2x2.textproto"),
                "topologies/v5e-2x2.textproto"}};
    space_.phase = c.phase;
    space_.context_len = c.context;
    space_.prompt_len = c.prompt;
  }

  std::unique_ptr<config::ServingModel> model_;
  std::vector<Slice> slices_;
  SpaceOptions space_;
};

TEST_P(SearchVsBruteForce, SameFrontierAsEveryConfigurationOnFlow) {
  const Problem problem = build_problem(*model_, slices_, space_);
  SearchOptions options;
  options.space = space_;
  const SearchResult result = run_search(problem, options);

  // Brute force, through the same library but none of the search's steps:
  // every candidate simulated on flow, the frontier of those that ran.
  std::vector<Objectives> points;
  std::vector<size_t> index;
  std::vector<Evaluation> flow(problem.size());
  double worst_slower = 0;
  double worst_faster = 0;
  double tightest_bound = 0;  // the largest bound / flow step time
  for (size_t i = 0; i < problem.size(); ++i) {
    flow[i] = problem.evaluate(i, Stage::kFlow);
    if (flow[i].status != Status::kOk)
      continue;
    points.push_back({flow[i].tokens_per_s_per_chip, flow[i].latency_us});
    index.push_back(i);
    // Signed: how much slower the analytical model made the step than flow.
    // The search estimates only some candidates: every one here.
    const Evaluation a = problem.evaluate(i, Stage::kAnalytical);
    if (result.results[i].analytical) {
      EXPECT_EQ(result.results[i].analytical->step_time_us, a.step_time_us) << i;
    }
    worst_slower = std::max(worst_slower, a.step_time_us / flow[i].step_time_us - 1);
    worst_faster = std::max(worst_faster, 1 - a.step_time_us / flow[i].step_time_us);
    // The bound is below every network model's step, its throughput above.
    const Evaluation& check = result.results[i].check;
    EXPECT_GT(check.bound_latency_us, 0) << i;
    EXPECT_LE(check.bound_latency_us, flow[i].latency_us) << i;
    EXPECT_LE(check.bound_latency_us, a.latency_us) << i;
    EXPECT_GE(check.bound_tokens_per_s_per_chip, flow[i].tokens_per_s_per_chip) << i;
    EXPECT_GE(check.bound_tokens_per_s_per_chip, a.tokens_per_s_per_chip) << i;
    tightest_bound = std::max(tightest_bound, check.bound_latency_us / flow[i].latency_us);
  }
  std::vector<size_t> brute;
  for (const size_t k : pareto_frontier(points))
    brute.push_back(index[k]);

  EXPECT_EQ(result.frontier, brute);
  for (const size_t i : result.frontier) {
    EXPECT_EQ(result.results[i].flow->step_time_us, flow[i].step_time_us) << i;
    EXPECT_EQ(result.results[i].flow->tokens_per_s_per_chip, flow[i].tokens_per_s_per_chip) << i;
  }
  // The premise of the pruning rule, measured on this case: the analytical
  // step time is never more than kAnalyticalError slower than flow.
  EXPECT_LE(worst_slower, kAnalyticalError);
  // The case exercises every path: rejected, too large, pruned, simulated.
  EXPECT_GT(result.count(Status::kInvalid), 0u);
  EXPECT_GT(result.count(Status::kOom), 0u);
  EXPECT_GT(result.pruned(), 0u);
  EXPECT_GT(result.pruned_by_bound(), 0u);
  EXPECT_LT(result.estimated(), result.count(Status::kOk));
  EXPECT_GT(result.frontier.size(), 1u);
  RecordProperty("candidates", static_cast<int>(problem.size()));
  RecordProperty("pruned", static_cast<int>(result.pruned()));
  std::cout << GetParam().label << ": " << problem.size() << " candidates, "
            << result.count(Status::kOk) << " fit, " << result.pruned() << " pruned, "
            << result.frontier.size() << " on the frontier in " << result.rounds << " rounds; "
            << result.estimated() << " estimated, " << result.pruned_by_bound()
            << " pruned on their bound alone; analytical at most " << worst_slower * 100
            << "% slower and " << worst_faster * 100 << "% faster than flow; the bound at most "
            << tightest_bound * 100 << "% of flow's step\n";
}

// On a slice whose dimensions differ (a line of 2 beside a ring of 8) the
// steps whose collectives span both fall out of step, and the analytical
// model times some of them more than kAnalyticalError slower than flow
// (10.5% here): the pruning allows those candidates kOutOfStepError, and
// the frontier is still every configuration's on flow.
TEST(SearchOutOfStep, AWiderMarginKeepsTheFrontierExactWhereDimensionsDiffer) {
  const config::ServingModel model = config::ServingModel::load(
      testing::source_dir() / "workloads/llama3-8b-decode-v5e.textproto");
  config::PodSpec spec =
      config::load_topology_file(testing::source_dir() / "topologies/v5e-4x4.textproto");
  spec.torus.dims[0].size = 2;  // a line
  spec.torus.dims[1].size = 8;
  spec.torus.dims[1].wraparound = true;  // a ring
  const std::vector<Slice> slices = {{spec, "v5e 2x8, y a ring"}};
  SpaceOptions space;
  space.phase = config::Phase::kDecode;
  space.context_len = 4096;
  const Problem problem = build_problem(model, slices, space);
  SearchOptions options;
  options.space = space;
  const SearchResult result = run_search(problem, options);

  std::vector<Objectives> points;
  std::vector<size_t> index;
  double in_step = 0;      // the most the analytical step was slower than flow's
  double out_of_step = 0;  // the same, for candidates out of step
  size_t named = 0;
  for (size_t i = 0; i < problem.size(); ++i) {
    const Evaluation flow = problem.evaluate(i, Stage::kFlow);
    if (flow.status != Status::kOk)
      continue;
    points.push_back({flow.tokens_per_s_per_chip, flow.latency_us});
    index.push_back(i);
    const double slower =
        problem.evaluate(i, Stage::kAnalytical).step_time_us / flow.step_time_us - 1;
    if (result.results[i].check.out_of_step) {
      ++named;
      out_of_step = std::max(out_of_step, slower);
    } else {
      in_step = std::max(in_step, slower);
    }
  }
  std::vector<size_t> brute;
  for (const size_t k : pareto_frontier(points))
    brute.push_back(index[k]);
  EXPECT_EQ(result.frontier, brute);
  EXPECT_LE(in_step, kAnalyticalError);
  EXPECT_LE(out_of_step, kOutOfStepError);
  EXPECT_GT(named, 0u);
  EXPECT_GT(result.pruned(), 0u);
  std::cout << problem.size() << " candidates, " << named << " out of step; analytical at most "
            << in_step * 100 << "% slower than flow in step, " << out_of_step * 100
            << "% out of step; " << result.pruned() << " pruned\n";
}

TEST_P(SearchVsBruteForce, RejectedCandidatesNeverReachASimulation) {
  const Problem problem = build_problem(*model_, slices_, space_);
  SearchOptions options;
  options.space = space_;
  const SearchResult result = run_search(problem, options);
  for (size_t i = 0; i < problem.size(); ++i) {
    const CandidateResult& r = result.results[i];
    bool loads = true;
    try {
      config::parse_workload_text(problem.texts()[i], "<test>", slices_[0].spec);
    } catch (const config::InputError&) {
      loads = false;
    }
    if (!loads) {
      EXPECT_EQ(r.check.status, Status::kInvalid) << i;
    }
    if (r.check.status != Status::kOk) {
      EXPECT_FALSE(r.analytical.has_value()) << i;
      EXPECT_FALSE(r.flow.has_value()) << i;
      EXPECT_FALSE(r.check.reason.empty()) << i;
    }
    if (r.flow) {
      EXPECT_TRUE(loads && r.check.status == Status::kOk && !r.pruned) << i;
    }
  }
}

TEST_P(SearchVsBruteForce, TwoThreadsGiveTheSameResultAsOne) {
  const Problem problem = build_problem(*model_, slices_, space_);
  SearchOptions one;
  one.space = space_;
  SearchOptions two = one;
  two.jobs = 2;
  const SearchResult a = run_search(problem, one);
  const SearchResult b = run_search(problem, two);
  ASSERT_EQ(a.results.size(), b.results.size());
  EXPECT_EQ(a.frontier, b.frontier);
  for (size_t i = 0; i < a.results.size(); ++i) {
    EXPECT_EQ(a.results[i].check.status, b.results[i].check.status) << i;
    EXPECT_EQ(a.results[i].check.reason, b.results[i].check.reason) << i;
    EXPECT_EQ(a.results[i].pruned, b.results[i].pruned) << i;
    ASSERT_EQ(a.results[i].flow.has_value(), b.results[i].flow.has_value()) << i;
    if (a.results[i].flow) {
      EXPECT_EQ(a.results[i].flow->step_time_us, b.results[i].flow->step_time_us) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Llama3_8B, SearchVsBruteForce,
                         ::testing::Values(Case{"decode", "llama3-8b-decode-v5e.textproto",
                                                config::Phase::kDecode, 1024, 0},
                                           Case{"prefill", "llama3-8b-prefill-v5e.textproto",
                                                config::Phase::kPrefill, 0, 512}),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return std::string(param.param.label);
                         });

// --objective energy / cost: nothing is pruned, every candidate that fits
// is simulated on flow, and the frontier is the objective's against
// latency, computed from those results by the same rule.
TEST(SearchObjective, EnergyAndCostFrontiersAreTheirObjectivesAgainstLatency) {
  const auto model = config::ServingModel::load(testing::source_dir() / "workloads" /
                                                "llama3-8b-decode-v5e.textproto");
  const std::vector<Slice> slices = {
      {config::load_topology_file(testing::source_dir() / "topologies/v5e-2x2.textproto"),
       "topologies/v5e-2x2.textproto"}};
  SpaceOptions space;
  space.phase = config::Phase::kDecode;
  space.context_len = 1024;
  space.batches = {4, 32};  // every sharding at two batches: small enough for the sanitizers
  Problem problem = build_problem(model, slices, space);
  problem.set_pricing(std::make_shared<config::PricingSpec>(config::load_pricing_file(
      testing::source_dir() / "topologies/pricing/google-cloud-2026.textproto")));
  for (const Objective objective : {Objective::kEnergy, Objective::kCost}) {
    SCOPED_TRACE(to_string(objective));
    SearchOptions options;
    options.space = space;
    options.objective = objective;
    const SearchResult result = run_search(problem, options);
    EXPECT_EQ(result.pruned(), 0u);
    EXPECT_EQ(result.simulated_flow(), result.count(Status::kOk));
    std::vector<Objectives> points;
    std::vector<size_t> index;
    for (size_t i = 0; i < result.results.size(); ++i) {
      const auto& flow = result.results[i].flow;
      if (flow && flow->status == Status::kOk) {
        EXPECT_TRUE(flow->energy_modelled);
        EXPECT_TRUE(flow->priced);
        EXPECT_NEAR(flow->tokens_per_j * flow->j_per_token, 1.0, 1e-12);
        points.push_back({objective_value(*flow, objective), flow->latency_us});
        index.push_back(i);
      }
    }
    std::vector<size_t> expected;
    for (const size_t k : pareto_frontier(points))
      expected.push_back(index[k]);
    EXPECT_EQ(result.frontier, expected);
    EXPECT_GT(expected.size(), 1u);  // a trade-off, not a single point
    // The best has the highest objective of all that ran.
    const std::optional<size_t> best = best_under(result, std::nullopt, objective);
    ASSERT_TRUE(best);
    for (const Objectives& p : points)
      EXPECT_LE(p.throughput, objective_value(*result.results[*best].flow, objective));
  }
}

TEST(BestUnder, AnObjectiveOtherThanThroughputPicksItsOwnBest) {
  SearchResult r;
  r.results.resize(2);
  Evaluation a;
  a.status = Status::kOk;
  a.tokens_per_s_per_chip = 10;
  a.latency_us = 100;
  a.energy_modelled = true;
  a.tokens_per_j = 5;
  Evaluation b = a;
  b.tokens_per_s_per_chip = 20;
  b.tokens_per_j = 2;
  r.results[0].flow = a;
  r.results[1].flow = b;
  r.frontier = {0, 1};
  EXPECT_EQ(best_under(r, std::nullopt), 1u);
  EXPECT_EQ(best_under(r, std::nullopt, Objective::kEnergy), 0u);
}

TEST(BestUnder, HighestThroughputUnderTheTargetOrNone) {
  SearchResult r;
  r.results.resize(3);
  const auto set = [&](size_t i, double thr, double lat) {
    Evaluation e;
    e.status = Status::kOk;
    e.tokens_per_s_per_chip = thr;
    e.latency_us = lat;
    r.results[i].flow = e;
  };
  set(0, 10, 100);
  set(1, 20, 200);
  set(2, 40, 400);
  r.frontier = {0, 1, 2};
  EXPECT_EQ(best_under(r, 250.0), 1u);
  EXPECT_EQ(best_under(r, 200.0), 1u);
  EXPECT_EQ(best_under(r, std::nullopt), 2u);
  EXPECT_EQ(best_under(r, 99.0), std::nullopt);
}

}  // namespace
}  // namespace podsim::search
