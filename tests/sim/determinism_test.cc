// Determinism: the kernel's order is the reference order, with or without the
// fast path, run after run, in parallel threads; and the fingerprint tracks it.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "sim/fingerprint.h"
#include "sim/simulation.h"
#include "stress_model.h"

namespace podsim::sim {
namespace {

using testing::run_on_reference;
using testing::run_on_simulation;
using testing::StressConfig;
using testing::StressResult;

class StressTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(StressTest, SimulationMatchesTheReferenceKernel) {
  const StressConfig config{.seed = GetParam()};
  const StressResult expected = run_on_reference(config);
  const StressResult fast = run_on_simulation(config, {.same_time_fast_path = true});
  const StressResult slow = run_on_simulation(config, {.same_time_fast_path = false});

  // The workload did exercise what it is meant to.
  ASSERT_GT(expected.executed.size(), 10'000u);
  EXPECT_GT(fast.same_time_events, 1'000u);
  EXPECT_GT(fast.successful_cancels, 100u);

  EXPECT_EQ(fast.executed, expected.executed);
  EXPECT_EQ(fast.cancel_results, expected.cancel_results);
  EXPECT_EQ(fast.fingerprint, expected.fingerprint);
  EXPECT_EQ(fast.pending_at_end, 0u);
  // The fast path changes nothing but speed.
  EXPECT_EQ(slow.executed, expected.executed);
  EXPECT_EQ(slow.fingerprint, expected.fingerprint);
}

INSTANTIATE_TEST_SUITE_P(Seeds, StressTest, ::testing::Values(1, 2, 3, 42, 1'000'003));

TEST(DeterminismTest, IdenticalSimulationsGiveIdenticalRuns) {
  const StressConfig config{.seed = 9};
  const StressResult a = run_on_simulation(config, {});
  const StressResult b = run_on_simulation(config, {});
  EXPECT_EQ(a.executed, b.executed);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
}

TEST(DeterminismTest, TwoSimulationsRunInTwoThreadsAtOnce) {
  const StressConfig config{.seed = 5, .max_events = 100'000};
  const StressResult expected = run_on_reference(config);
  StressResult in_thread_1;
  StressResult in_thread_2;
  std::thread t1([&] { in_thread_1 = run_on_simulation(config, {}); });
  std::thread t2([&] { in_thread_2 = run_on_simulation(config, {}); });
  t1.join();
  t2.join();
  EXPECT_EQ(in_thread_1.executed, expected.executed);
  EXPECT_EQ(in_thread_2.executed, expected.executed);
  EXPECT_EQ(in_thread_1.fingerprint, expected.fingerprint);
  EXPECT_EQ(in_thread_2.fingerprint, expected.fingerprint);
}

TEST(DeterminismTest, DifferentWorkloadsGiveDifferentFingerprints) {
  const StressResult a = run_on_simulation({.seed = 1}, {});
  const StressResult b = run_on_simulation({.seed = 2}, {});
  EXPECT_NE(a.fingerprint, b.fingerprint);
}

// A fixed event stream for the fingerprint tests below.
struct Key {
  int64_t time_ps;
  int priority;
  uint64_t seq;
};

uint64_t fold(const std::vector<Key>& stream) {
  EventFingerprint f;
  for (const Key& k : stream) {
    f.add(Time::ps(k.time_ps), k.priority, k.seq);
  }
  return f.value();
}

TEST(FingerprintTest, EveryFieldAndTheOrderMatter) {
  const std::vector<Key> base = {{0, 0, 0}, {10, 0, 1}, {10, 1, 2}, {25, -1, 3}};
  const uint64_t h = fold(base);
  EXPECT_EQ(fold(base), h);
  EXPECT_NE(fold({{0, 0, 0}, {11, 0, 1}, {10, 1, 2}, {25, -1, 3}}), h);  // a time
  EXPECT_NE(fold({{0, 0, 0}, {10, 0, 1}, {10, 2, 2}, {25, -1, 3}}), h);  // a priority
  EXPECT_NE(fold({{0, 0, 0}, {10, 0, 2}, {10, 1, 1}, {25, -1, 3}}), h);  // the sequences
  EXPECT_NE(fold({{0, 0, 0}, {10, 1, 2}, {10, 0, 1}, {25, -1, 3}}), h);  // the order
  EXPECT_NE(fold({{0, 0, 0}, {10, 0, 1}, {10, 1, 2}}), h);               // an event less
  EXPECT_NE(fold({}), h);
}

TEST(FingerprintTest, IsStableAcrossPlatformsAndVersions) {
  // Pinned values, computed outside C++ from the documented fold, so golden
  // files that store fingerprints stay valid. If this fails, the fold changed.
  EXPECT_EQ(EventFingerprint().value(), 0x243F6A8885A308D3ull);
  EXPECT_EQ(fold({{0, 0, 0}, {10, 0, 1}, {10, 1, 2}, {25, -1, 3}}), 0x1CF6AEFFB71A704Aull);
}

}  // namespace
}  // namespace podsim::sim
