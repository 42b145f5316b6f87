// The work budget (issue 12 point 4): a simulation charged to it stops with
// WorkLimitExceeded once a limit is passed, within one charge interval, and
// runs to the end when no limit is passed.
#include "sim/work_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "sim/simulation.h"

namespace podsim::sim {
namespace {

using ::testing::HasSubstr;

WorkLimits limits(uint64_t events, uint64_t memory_bytes, double wall_seconds) {
  WorkLimits l;
  l.max_events = events;
  l.max_memory_bytes = memory_bytes;
  l.max_wall_seconds = wall_seconds;
  return l;
}

// Reschedules itself `left` times, 1 ns apart.
struct Ticker final : EventHandler {
  uint64_t left = 0;
  void handle(Simulation& s, uint64_t) override {
    if (left-- > 0) {
      s.schedule_in(Time::ns(1), *this);
    }
  }
};

uint64_t run_ticks(Simulation& sim, uint64_t ticks) {
  Ticker t;
  t.left = ticks;
  sim.schedule_at(Time::zero(), t);
  sim.run();
  return sim.events_executed();
}

TEST(WorkBudget, StopsWithinOneChargeIntervalOfTheEventLimit) {
  WorkBudget budget(limits(200'000, 0, 0));
  Simulation sim(Simulation::Options::charging(&budget));
  try {
    run_ticks(sim, 10'000'000);
    ADD_FAILURE() << "ran to the end";
  } catch (const WorkLimitExceeded& e) {
    EXPECT_EQ(e.limit(), WorkLimitExceeded::Limit::kEvents);
    EXPECT_THAT(e.what(), HasSubstr("over the limit of 200000 (--max-events)"));
  }
  EXPECT_GT(sim.events_executed(), 200'000U);
  EXPECT_LE(sim.events_executed(), 200'000U + Simulation::kChargeInterval);
}

TEST(WorkBudget, EventsOfSeveralSimulationsAddUp) {
  WorkBudget budget(limits(150'000, 0, 0));
  {
    Simulation first(Simulation::Options::charging(&budget));
    EXPECT_EQ(run_ticks(first, 100'000), 100'001U);  // charged in full at the end
  }
  EXPECT_EQ(budget.events(), 100'001U);
  Simulation second(Simulation::Options::charging(&budget));
  EXPECT_THROW(run_ticks(second, 100'000), WorkLimitExceeded);
}

TEST(WorkBudget, NoLimitRunsToTheEnd) {
  WorkBudget budget(limits(0, 0, 0));
  Simulation sim(Simulation::Options::charging(&budget));
  EXPECT_EQ(run_ticks(sim, 300'000), 300'001U);
  EXPECT_EQ(budget.events(), 300'001U);
}

// The resident set read from /proc/self/statm is the same figure an
// independent parse of the file gives (read just before and just after:
// the process may grow a little in between).
TEST(WorkBudget, ResidentMemoryIsStatmsSecondFieldInPages) {
  auto statm = [] {
    std::ifstream in("/proc/self/statm");
    uint64_t size = 0;
    uint64_t resident = 0;
    in >> size >> resident;
    return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  };
  const uint64_t before = statm();
  const uint64_t read = resident_memory_bytes();
  const uint64_t after = statm();
  ASSERT_GT(before, 0U);
  EXPECT_GE(read + (1U << 20), before);
  EXPECT_LE(read, after + (1U << 20));
}

TEST(WorkBudget, WallTimeAndMemoryLimits) {
  WorkBudget slow(limits(0, 0, 1e-9));
  Simulation a(Simulation::Options::charging(&slow));
  try {
    run_ticks(a, 1'000'000);
    ADD_FAILURE() << "ran to the end";
  } catch (const WorkLimitExceeded& e) {
    EXPECT_EQ(e.limit(), WorkLimitExceeded::Limit::kWallTime);
    EXPECT_THAT(e.what(), HasSubstr("(--max-wall-seconds)"));
  }
  ASSERT_GT(resident_memory_bytes(), 0U);  // Linux: /proc/self/statm
  WorkBudget small(limits(0, 1, 0));
  Simulation b(Simulation::Options::charging(&small));
  try {
    run_ticks(b, 1'000'000);
    ADD_FAILURE() << "ran to the end";
  } catch (const WorkLimitExceeded& e) {
    EXPECT_EQ(e.limit(), WorkLimitExceeded::Limit::kMemory);
    EXPECT_THAT(e.what(), HasSubstr("(--max-memory-mb)"));
  }
}

TEST(WorkBudget, EstimatesPastALimitAreRefusedBeforeAnyWork) {
  const WorkBudget budget(limits(1000, 1 << 20, 0));
  EXPECT_NO_THROW(budget.check_estimate(1000, 1 << 20));
  try {
    budget.check_estimate(1001, 0);
    ADD_FAILURE();
  } catch (const WorkLimitExceeded& e) {
    EXPECT_THAT(e.what(), HasSubstr("not started: estimated at least 1001 events"));
  }
  EXPECT_THROW(budget.check_estimate(0, (1 << 20) + 1), WorkLimitExceeded);
  EXPECT_EQ(budget.events(), 0U);
}

}  // namespace
}  // namespace podsim::sim
