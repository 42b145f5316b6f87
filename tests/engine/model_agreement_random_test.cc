// The analytical network model against the flow model on random single
// collectives (random_workloads.h: 1 to 3 dimensions, wrapped or lines,
// sometimes slices over the DCN; every kind, forced algorithms), each alone
// on a healthy pod, split by engine::out_of_step_collectives
// (engine/model_caveats.h), the rule behind `podsim run -n analytical`'s
// warning:
//  - in step (nothing named): the transfers that meet on a link start at
//    one instant, where the analytical model shares the link as max-min
//    does; they agree (measured: to the digit, on all of them), and the
//    bound is the documented 5%;
//  - out of step (named): shares whose phases differ in length meet on a
//    link at different instants, and the analytical model queues there
//    what flow (and packet) share. The difference goes either way; the
//    bound is the documented 0.70x to 1.30x flow (docs/architecture.md,
//    "The network models"), and the test checks that it does differ, so
//    that the warning is not raised for nothing.
// Of these 2,000 seeds, 1,481 are in step, every one equal to the digit,
// and 415 out of step, from 0.750x to 1.222x flow, 125 of them more than
// 5% off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "engine/model_caveats.h"
#include "random_workloads.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

using testing::Outcome;
using testing::RandomCase;

TEST(ModelAgreement, RandomCollectivesAgreeInStepAndStayInTheBoundOutOfStep) {
  constexpr uint64_t kCases = 2000;
  uint32_t in = 0;
  uint32_t out = 0;
  double lowest = 1;
  double highest = 1;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    RandomCase c = testing::random_case(seed);
    c.workload.operations.resize(1);  // alone
    c.workload.operations[0].after.clear();
    c.workload.operations[0].repeat = 1;
    const Outcome analytical = testing::play(c, true, net::Model::kAnalytical);
    const Outcome flow = testing::play(c, true, net::Model::kFlow);
    ASSERT_EQ(analytical.result.has_value(), flow.result.has_value()) << c.description;
    if (!flow.result || flow.result->makespan == sim::Time::zero())
      continue;  // refused, or nothing to move (a shift by the whole group)
    const double ratio = static_cast<double>(analytical.result->makespan.count_ps()) /
                         static_cast<double>(flow.result->makespan.count_ps());
    if (out_of_step_collectives(topo::Pod(c.pod), c.workload).empty()) {
      ++in;
      EXPECT_NEAR(ratio, 1.0, 0.05) << c.description;
    } else {
      ++out;
      lowest = std::min(lowest, ratio);
      highest = std::max(highest, ratio);
      EXPECT_GE(ratio, 0.70) << c.description;
      EXPECT_LE(ratio, 1.30) << c.description;
    }
  }
  EXPECT_GT(in, kCases / 2);
  EXPECT_GT(out, kCases / 5);
  // The out-of-step cases do differ (else the docs overstate it).
  EXPECT_LT(lowest, 0.9);
  EXPECT_GT(highest, 1.1);
}

// The same split on random serving steps (small models, every sharding
// role, folded or not): in step, the step times agree within 5% (measured
// 0.981x to 1.000x flow on 492 of these 600 seeds); out of step within
// 0.70x-1.30x (0.918x to 1.132x on 108, the case search's wider margin is
// for: 13.2% slower than flow, past kAnalyticalError's 10%).
TEST(ModelAgreement, RandomServingStepsAgreeInStepAndStayInTheBoundOutOfStep) {
  constexpr uint64_t kCases = 600;
  uint32_t in = 0;
  uint32_t out = 0;
  for (uint64_t seed = 1; seed <= kCases; ++seed) {
    const testing::RandomStep c = testing::random_step(seed);
    const testing::StepOutcome analytical = testing::play(c, c.fold, true, net::Model::kAnalytical);
    const testing::StepOutcome flow = testing::play(c, c.fold, true, net::Model::kFlow);
    ASSERT_EQ(analytical.result.has_value(), flow.result.has_value()) << c.description;
    if (!flow.result)
      continue;
    const double ratio = static_cast<double>(analytical.result->step_time.count_ps()) /
                         static_cast<double>(flow.result->step_time.count_ps());
    if (out_of_step_collectives(topo::Pod(c.pod), c.workload).empty()) {
      ++in;
      EXPECT_NEAR(ratio, 1.0, 0.05) << c.description;
    } else {
      ++out;
      EXPECT_GE(ratio, 0.70) << c.description;
      EXPECT_LE(ratio, 1.30) << c.description;
    }
  }
  EXPECT_GT(in, kCases / 2);
  EXPECT_GT(out, kCases / 10);
}

}  // namespace
}  // namespace podsim::engine
