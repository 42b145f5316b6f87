// Limits on a whole sweep's work (issue 27): --max-wall-seconds and
// --max-events bound the sweep as a whole, not only each point (a
// 64,000-point sweep under --max-wall-seconds 2 used to run 36 s and exit 0).
//
// Each point runs with what is left: the wall time until the sweep's
// deadline and the events the sweep's earlier points did not use, so a point
// stops (sim::WorkLimitExceeded) once the sweep is past a limit, and no point
// starts after it. Events are summed over the points this process ran and,
// on rank 0 of an MPI job, over the points the other ranks sent it. The
// memory limit stays per process (it bounds resident memory, which is
// already the sum over the points running at once). Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "podsim/result.pb.h"
#include "sim/work_budget.h"

namespace podsim::sweep {

class SweepBudget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SweepBudget(sim::WorkLimits limits, Clock::time_point start = Clock::now());

  // The limits point `index` runs with if it starts now. Throws
  // sim::WorkLimitExceeded, naming the sweep's limit, when none is left.
  sim::WorkLimits for_point(uint64_t index) const;

  // Runs point `index` with for_point()'s limits, adds its events, and
  // rewrites a limit it hit as the sweep's. Throws as for_point() and
  // spend(), and what `point` throws.
  podsim::Result run(uint64_t index,
                     const std::function<podsim::Result(const sim::WorkLimits&)>& point);

  // Adds `events` of point `index`; throws once the sum passes --max-events.
  void spend(uint64_t index, uint64_t events);

  const sim::WorkLimits& limits() const { return limits_; }
  Clock::time_point start() const { return start_; }
  uint64_t events() const { return events_.load(); }

 private:
  [[noreturn]] void wall_time_passed(uint64_t index, const char* when) const;

  const sim::WorkLimits limits_;
  const Clock::time_point start_;
  std::atomic<uint64_t> events_{0};
};

// The events a point's simulation executed, as its result reports them (0
// for a point that did not run; a generation reports none).
uint64_t events_of(const podsim::Result& result);

}  // namespace podsim::sweep
