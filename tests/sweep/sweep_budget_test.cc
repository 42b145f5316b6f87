// SweepBudget (sweep/sweep_budget.h): --max-wall-seconds and --max-events
// bound a whole sweep, not each point alone (issue 27: a 64,000-point sweep
// under --max-wall-seconds 2 ran 36 s and exited 0).
#include "sweep/sweep_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace podsim::sweep {
namespace {

using ::testing::HasSubstr;
using Limit = sim::WorkLimitExceeded::Limit;

podsim::Result serving_with_events(uint64_t events) {
  podsim::Result r;
  r.mutable_serving()->set_events(events);
  return r;
}

TEST(SweepBudget, PointsGetWhatIsLeftOfTheEvents) {
  SweepBudget budget({.max_events = 1000});
  EXPECT_EQ(budget.for_point(0).max_events, 1000U);
  budget.run(0, [](const sim::WorkLimits&) { return serving_with_events(600); });
  EXPECT_EQ(budget.events(), 600U);
  EXPECT_EQ(budget.for_point(1).max_events, 400U);
}

TEST(SweepBudget, TheSumOfThePointsEventsStopsTheSweep) {
  SweepBudget budget({.max_events = 1000});
  budget.run(0, [](const sim::WorkLimits&) { return serving_with_events(600); });
  try {
    budget.run(1, [](const sim::WorkLimits&) { return serving_with_events(600); });
    FAIL() << "1200 events passed a limit of 1000";
  } catch (const sim::WorkLimitExceeded& e) {
    EXPECT_EQ(e.limit(), Limit::kEvents);
    EXPECT_THAT(e.what(), HasSubstr("its points ran 1200 events, over the limit of 1000"));
  }
  EXPECT_THROW(budget.for_point(2), sim::WorkLimitExceeded) << "no point starts after";
}

TEST(SweepBudget, APointStoppedAtTheRemainderIsTheSweepsLimit) {
  SweepBudget budget({.max_events = 1000});
  budget.spend(0, 900);  // another rank's point, summed on rank 0
  try {
    budget.run(1, [](const sim::WorkLimits& left) -> podsim::Result {
      EXPECT_EQ(left.max_events, 100U);
      throw sim::WorkLimitExceeded(Limit::kEvents, "stopped after 101 events");
    });
    FAIL();
  } catch (const sim::WorkLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("the 100 events left of the limit of 1000"));
  }
}

TEST(SweepBudget, WallTimeBoundsTheWholeSweep) {
  SweepBudget budget({.max_wall_seconds = 0.05});
  const double first = budget.for_point(0).max_wall_seconds;
  EXPECT_GT(first, 0);
  EXPECT_LE(first, 0.05);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  try {
    budget.for_point(7);
    FAIL() << "started a point past the sweep's wall time";
  } catch (const sim::WorkLimitExceeded& e) {
    EXPECT_EQ(e.limit(), Limit::kWallTime);
    EXPECT_THAT(e.what(), HasSubstr("at point 7"));
    EXPECT_THAT(e.what(), HasSubstr("--max-wall-seconds bounds the whole sweep"));
  }
}

TEST(SweepBudget, NoLimitIsNoLimit) {
  SweepBudget budget({});
  for (uint64_t i = 0; i < 3; ++i)
    budget.run(i, [](const sim::WorkLimits& l) {
      EXPECT_EQ(l.max_events, 0U);
      EXPECT_EQ(l.max_wall_seconds, 0);
      return serving_with_events(1'000'000'000'000ULL);
    });
  EXPECT_EQ(budget.events(), 3'000'000'000'000ULL);
}

TEST(SweepBudget, EventsOfEachResultForm) {
  podsim::Result op_list;
  op_list.mutable_op_list()->set_events(42);
  EXPECT_EQ(events_of(op_list), 42U);
  EXPECT_EQ(events_of(serving_with_events(7)), 7U);
  EXPECT_EQ(events_of(podsim::Result{}), 0U);
}

}  // namespace
}  // namespace podsim::sweep
