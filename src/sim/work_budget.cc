#include "sim/work_budget.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace podsim::sim {
namespace {

std::string mb(uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MB";
}

}  // namespace

std::string format_seconds(double s) {
  // Whole seconds from 100 s on, three digits below (a limit of 0.5 s is
  // not "0 s").
  char buf[32];
  std::snprintf(buf, sizeof buf, s >= 100 ? "%.0f s" : "%.3g s", s);
  return buf;
}

// One read(2) of /proc/self/statm ("size resident shared ...", in pages)
// into a buffer on the stack: a budget reads it at every charge, and a
// sweep charges each point's short simulation at least once (an ifstream
// opened and parsed at each charge was about 3% of the profile samples of
// a 1000-point analytical sweep).
uint64_t resident_memory_bytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) {
    return 0;
  }
  buf[n] = '\0';
  char* end = nullptr;
  std::strtoull(buf, &end, 10);  // size
  if (end == buf) {
    return 0;
  }
  const char* resident_at = end;
  const uint64_t resident_pages = std::strtoull(resident_at, &end, 10);
  if (end == resident_at) {
    return 0;
  }
  const long page = sysconf(_SC_PAGESIZE);
  return resident_pages * static_cast<uint64_t>(page > 0 ? page : 4096);
}

WorkBudget::WorkBudget(WorkLimits limits) : limits_(limits), start_(Clock::now()) {}

void WorkBudget::charge(uint64_t events) {
  events_ += events;
  if (limits_.max_events != 0 && events_ > limits_.max_events) {
    throw WorkLimitExceeded(WorkLimitExceeded::Limit::kEvents,
                            "stopped after " + std::to_string(events_) +
                                " events, over the limit of " + std::to_string(limits_.max_events) +
                                " (--max-events)");
  }
  if (limits_.max_wall_seconds > 0) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    if (elapsed > limits_.max_wall_seconds) {
      throw WorkLimitExceeded(WorkLimitExceeded::Limit::kWallTime,
                              "stopped after " + format_seconds(elapsed) + " and " +
                                  std::to_string(events_) + " events, over the limit of " +
                                  format_seconds(limits_.max_wall_seconds) +
                                  " (--max-wall-seconds)");
    }
  }
  if (limits_.max_memory_bytes != 0) {
    const uint64_t rss = resident_memory_bytes();
    if (rss > limits_.max_memory_bytes) {
      throw WorkLimitExceeded(WorkLimitExceeded::Limit::kMemory,
                              "stopped at " + mb(rss) + " of resident memory after " +
                                  std::to_string(events_) + " events, over the limit of " +
                                  mb(limits_.max_memory_bytes) + " (--max-memory-mb)");
    }
  }
  if (observer_)
    observer_(events_);
}

void WorkBudget::check_estimate(uint64_t events, uint64_t memory_bytes) const {
  if (limits_.max_events != 0 && events > limits_.max_events) {
    throw WorkLimitExceeded(WorkLimitExceeded::Limit::kEvents,
                            "not started: estimated at least " + std::to_string(events) +
                                " events, over the limit of " + std::to_string(limits_.max_events) +
                                " (--max-events)");
  }
  if (limits_.max_memory_bytes != 0 && memory_bytes > limits_.max_memory_bytes) {
    throw WorkLimitExceeded(WorkLimitExceeded::Limit::kMemory,
                            "not started: estimated at least " + mb(memory_bytes) +
                                " of memory, over the limit of " + mb(limits_.max_memory_bytes) +
                                " (--max-memory-mb)");
  }
}

}  // namespace podsim::sim
