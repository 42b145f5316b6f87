#include "sweep/sweep_budget.h"

#include <string>

namespace podsim::sweep {
namespace {

using Limit = sim::WorkLimitExceeded::Limit;

}  // namespace

SweepBudget::SweepBudget(sim::WorkLimits limits, Clock::time_point start)
    : limits_(limits), start_(start) {}

void SweepBudget::wall_time_passed(uint64_t index, const char* when) const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  throw sim::WorkLimitExceeded(Limit::kWallTime,
                               "sweep stopped after " + sim::format_seconds(elapsed) + " " + when +
                                   " point " + std::to_string(index) + ", over the limit of " +
                                   sim::format_seconds(limits_.max_wall_seconds) +
                                   " (--max-wall-seconds bounds the whole sweep)");
}

sim::WorkLimits SweepBudget::for_point(uint64_t index) const {
  sim::WorkLimits l = limits_;
  if (limits_.max_wall_seconds > 0) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (elapsed >= limits_.max_wall_seconds)
      wall_time_passed(index, "at");
    l.max_wall_seconds = limits_.max_wall_seconds - elapsed;
  }
  if (limits_.max_events > 0) {
    const uint64_t spent = events_.load();
    if (spent >= limits_.max_events) {
      throw sim::WorkLimitExceeded(
          Limit::kEvents, "sweep stopped at point " + std::to_string(index) + ": its points ran " +
                              std::to_string(spent) + " events, over the limit of " +
                              std::to_string(limits_.max_events) +
                              " (--max-events bounds the sum over the sweep's points)");
    }
    l.max_events = limits_.max_events - spent;
  }
  return l;
}

podsim::Result SweepBudget::run(
    uint64_t index, const std::function<podsim::Result(const sim::WorkLimits&)>& point) {
  const sim::WorkLimits l = for_point(index);
  podsim::Result result;
  try {
    result = point(l);
  } catch (const sim::WorkLimitExceeded& e) {
    // A point stopped at what the sweep had left says so: its own message
    // would quote the remainder as if it were the user's limit.
    if (e.limit() == Limit::kWallTime && l.max_wall_seconds < limits_.max_wall_seconds)
      wall_time_passed(index, "while running");
    if (e.limit() == Limit::kEvents && l.max_events < limits_.max_events) {
      throw sim::WorkLimitExceeded(
          Limit::kEvents, "sweep stopped at point " + std::to_string(index) + ": it ran past the " +
                              std::to_string(l.max_events) + " events left of the limit of " +
                              std::to_string(limits_.max_events) +
                              " (--max-events bounds the sum over the sweep's points)");
    }
    throw;
  }
  spend(index, events_of(result));
  return result;
}

void SweepBudget::spend(uint64_t index, uint64_t events) {
  const uint64_t sum = events_.fetch_add(events) + events;
  if (limits_.max_events > 0 && sum > limits_.max_events) {
    throw sim::WorkLimitExceeded(
        Limit::kEvents, "sweep stopped at point " + std::to_string(index) + ": its points ran " +
                            std::to_string(sum) + " events, over the limit of " +
                            std::to_string(limits_.max_events) +
                            " (--max-events bounds the sum over the sweep's points)");
  }
}

uint64_t events_of(const podsim::Result& result) {
  if (result.has_serving())
    return result.serving().events();
  if (result.has_op_list())
    return result.op_list().events();
  return 0;
}

}  // namespace podsim::sweep
