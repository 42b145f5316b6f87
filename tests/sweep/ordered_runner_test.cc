// Results come back in index order whatever order the threads finish in,
// the window bounds how far ahead they run, errors reach the caller, and a
// sweep dealt over a transport writes the same bytes for any number of jobs.
#include "sweep/ordered_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "sweep/transport.h"

namespace podsim::sweep {
namespace {

// Later points finish first: index i sleeps (n - i) * 200 us.
std::string slow_first(uint64_t i, uint64_t n) {
  std::this_thread::sleep_for(std::chrono::microseconds(200 * (n - i)));
  return "row " + std::to_string(i) + "\n";
}

std::string run_all(uint64_t n, unsigned jobs) {
  LocalTransport local;
  std::string out;
  uint64_t expected = 0;
  run_points(
      n, local, jobs, [n](uint64_t i) { return slow_first(i, n); },
      [&](uint64_t i, const std::string& s) {
        EXPECT_EQ(i, expected++);
        out += s;
      });
  EXPECT_EQ(expected, n);
  return out;
}

TEST(ShareTest, RoundRobinSharesCoverEveryPointOnce) {
  const uint64_t n = 10;
  std::vector<int> hits(n, 0);
  for (uint64_t r = 0; r < 3; ++r) {
    const Share s{r, 3, n};
    for (uint64_t k = 0; k < s.size(); ++k)
      ++hits[s.at(k)];
  }
  for (int h : hits)
    EXPECT_EQ(h, 1);
  EXPECT_EQ((Share{0, 3, 10}.size()), 4U);
  EXPECT_EQ((Share{2, 3, 10}.size()), 3U);
  EXPECT_EQ((Share{5, 8, 4}.size()), 0U);
}

TEST(OrderedRunnerTest, SameBytesForAnyNumberOfJobs) {
  const std::string one = run_all(40, 1);
  EXPECT_EQ(one.substr(0, 12), "row 0\nrow 1\n");
  EXPECT_EQ(run_all(40, 2), one);
  EXPECT_EQ(run_all(40, 7), one);
}

TEST(OrderedRunnerTest, NeverRunsMoreThanTheWindowAhead) {
  std::atomic<uint64_t> started{0};
  std::atomic<uint64_t> consumed{0};
  std::atomic<bool> overran{false};
  const uint64_t window = 3;
  OrderedRunner runner(
      {0, 1, 50}, 4,
      [&](uint64_t i) {
        started.fetch_add(1);
        // The runner counts a result consumed as next() returns
        // it, one step before this test does.
        if (i >= consumed.load() + window + 1)
          overran = true;
        return std::to_string(i);
      },
      window);
  for (uint64_t k = 0; k < 50; ++k) {
    EXPECT_EQ(runner.next(), std::to_string(k));
    consumed.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  EXPECT_FALSE(overran.load());
  EXPECT_EQ(started.load(), 50U);
}

TEST(OrderedRunnerTest, AnErrorReachesTheCallerAtItsIndex) {
  OrderedRunner runner({0, 1, 5}, 2, [](uint64_t i) -> std::string {
    if (i == 2)
      throw std::runtime_error("point 2 broke");
    return std::to_string(i);
  });
  EXPECT_EQ(runner.next(), "0");
  EXPECT_EQ(runner.next(), "1");
  EXPECT_THROW(runner.next(), std::runtime_error);
}

TEST(OrderedRunnerTest, AShareComputesOnlyItsPoints) {
  OrderedRunner runner({1, 3, 8}, 2, [](uint64_t i) { return std::to_string(i); });
  EXPECT_EQ(runner.next(), "1");
  EXPECT_EQ(runner.next(), "4");
  EXPECT_EQ(runner.next(), "7");
  EXPECT_THROW(runner.next(), std::logic_error);
}

TEST(OrderedRunnerTest, WaitNextForReturnsWhenTheNextResultIsThere) {
  std::atomic<bool> go{false};
  OrderedRunner runner({0, 1, 1}, 1, [&go](uint64_t) {
    while (!go)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return std::string("done");
  });
  EXPECT_FALSE(runner.wait_next_for(std::chrono::milliseconds(20))) << "still computing";
  go = true;
  EXPECT_TRUE(runner.wait_next_for(std::chrono::seconds(30)));
  EXPECT_EQ(runner.next(), "done");
}

// One process that counts how often run_points keeps it alive.
class CountingTransport final : public Transport {
 public:
  unsigned rank() const override { return 0; }
  unsigned ranks() const override { return 1; }
  std::string receive(uint64_t) override { throw std::logic_error("one rank"); }
  void send(uint64_t, const std::string&) override { throw std::logic_error("one rank"); }
  void abort(int) override {}
  std::string broadcast(std::string bytes) override { return bytes; }
  void keep_alive() override { ++keep_alives; }
  void begin_points() override { ++rounds; }
  int keep_alives = 0;
  int rounds = 0;
};

TEST(OrderedRunnerTest, ALongPointKeepsTheRankAlive) {
  // A rank timeout of 0.2 s: a heartbeat every 50 ms (a quarter, at least
  // 50 ms), so a 400 ms point sends several while rank 0 waits for it.
  CountingTransport transport;
  transport.set_wait_limits({.rank_timeout_seconds = 0.2});
  EXPECT_EQ(transport.heartbeat_interval(), std::chrono::milliseconds(50));
  run_points(
      1, transport, 1,
      [](uint64_t) {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        return std::string("x");
      },
      [](uint64_t, const std::string&) {});
  EXPECT_GE(transport.keep_alives, 3);
  EXPECT_EQ(transport.rounds, 1);
}

TEST(TransportTest, RunPointsCallsTheTransportsErrorHookWithoutItsOwn) {
  // How search and capacity end an MPI job from library code that runs
  // points for them: the command sets the hook once on the transport.
  CountingTransport transport;
  std::string seen;
  transport.set_on_error([&seen](const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::runtime_error& error) {
      seen = error.what();
    }
  });
  const auto failing = [](uint64_t) -> std::string { throw std::runtime_error("point failed"); };
  EXPECT_THROW(run_points(1, transport, 1, failing, [](uint64_t, const std::string&) {}),
               std::runtime_error);
  EXPECT_EQ(seen, "point failed");
  // A run_points given its own on_error calls that one alone.
  seen.clear();
  bool own = false;
  EXPECT_THROW(run_points(
                   1, transport, 1, failing, [](uint64_t, const std::string&) {},
                   [&own](const std::exception_ptr&) { own = true; }),
               std::runtime_error);
  EXPECT_TRUE(own);
  EXPECT_EQ(seen, "");
}

TEST(TransportTest, HeartbeatIsAQuarterOfTheRankTimeoutWithinBounds) {
  CountingTransport t;
  t.set_wait_limits({.rank_timeout_seconds = 600});
  EXPECT_EQ(t.heartbeat_interval(), std::chrono::seconds(30));
  t.set_wait_limits({.rank_timeout_seconds = 2});
  EXPECT_EQ(t.heartbeat_interval(), std::chrono::milliseconds(500));
  t.set_wait_limits({.rank_timeout_seconds = 0.01});
  EXPECT_EQ(t.heartbeat_interval(), std::chrono::milliseconds(50));
  t.set_wait_limits({});
  EXPECT_EQ(t.heartbeat_interval(), std::chrono::seconds(1));
}

}  // namespace
}  // namespace podsim::sweep
