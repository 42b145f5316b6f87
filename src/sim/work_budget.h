// Limits on the work of one run: events executed, resident memory, wall
// time (issue 12: a 1.3 KB workload ran 66 s, a packet run passed 4 GB, and
// nothing stopped them). A WorkBudget is made for one run and given to each
// Simulation of it (Simulation::Options::budget), which charges it every
// kChargeInterval events; the budget throws WorkLimitExceeded once a limit
// is passed, and the run unwinds with no result. Charging costs one branch
// per event and, every kChargeInterval events, a clock read and (for the
// memory limit) a read of /proc/self/statm.
//
// Resident memory is the process's, so in a sweep running points on several
// threads the limit bounds their sum. A limit of 0 means none.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace podsim::sim {

struct WorkLimits {
  uint64_t max_events = 0;        // events executed over the run's simulations
  uint64_t max_memory_bytes = 0;  // resident memory of the process
  double max_wall_seconds = 0;    // since the budget was made
};

// The defaults of `podsim run`, `sweep` and `search` (docs/inputs.md): far
// above any shipped workload (the largest, LLaMA-3-405B decode on the
// 4096-chip v4 pod, runs 14 M events in under 2 GB and a minute) and below
// what a typo in a generated input costs.
inline constexpr WorkLimits kDefaultWorkLimits{
    .max_events = 20'000'000'000ULL,
    .max_memory_bytes = 16ULL << 30,
    .max_wall_seconds = 4 * 3600.0,
};

class WorkLimitExceeded : public std::runtime_error {
 public:
  enum class Limit { kEvents, kMemory, kWallTime };
  WorkLimitExceeded(Limit limit, const std::string& what)
      : std::runtime_error(what), limit_(limit) {}
  Limit limit() const { return limit_; }

 private:
  Limit limit_;
};

// The resident memory of this process in bytes (0 where it cannot be read).
uint64_t resident_memory_bytes();

// Seconds as the limits' messages give them: whole from 100 s on, three
// significant digits below ("0.5 s", "2.01 s", "600 s").
std::string format_seconds(double s);

class WorkBudget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WorkBudget(WorkLimits limits);

  // Counts `events` more executed events, then checks every limit; throws
  // WorkLimitExceeded naming the first passed. Also callable with 0 to check
  // memory and time alone (e.g. before a simulation starts).
  void charge(uint64_t events);

  // Refuses a run whose estimate already passes a limit, before any work:
  // throws WorkLimitExceeded saying it was an estimate.
  void check_estimate(uint64_t events, uint64_t memory_bytes) const;

  uint64_t events() const { return events_; }
  const WorkLimits& limits() const { return limits_; }

  // Called with the events charged so far after each charge that passed
  // every limit (a simulation charges every Simulation::kChargeInterval
  // events): a progress report's heartbeat. Empty: none.
  void set_observer(std::function<void(uint64_t events)> observer) {
    observer_ = std::move(observer);
  }

 private:
  WorkLimits limits_;
  std::function<void(uint64_t)> observer_;
  Clock::time_point start_;
  uint64_t events_ = 0;
};

}  // namespace podsim::sim
