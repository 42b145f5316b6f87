#include "cli/progress.h"

#include <chrono>
#include <cstdio>

namespace podsim::cli {
namespace {

// Carriage return to the line's start, then erase to its end (ANSI EL).
constexpr const char* kErase = "\r\x1b[K";

}  // namespace

double ProgressLine::steady_seconds() {
  using std::chrono::duration;
  return duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressLine::ProgressLine(std::ostream& out, bool enabled, std::string what, std::string unit,
                           Clock clock)
    : out_(out),
      enabled_(enabled),
      what_(std::move(what)),
      unit_(std::move(unit)),
      clock_(std::move(clock)) {
  if (enabled_) {
    started_ = clock_();
  }
}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::update(uint64_t done, uint64_t total) {
  if (!enabled_) {
    return;
  }
  const double now = clock_();
  const double elapsed = now - started_;
  if (elapsed < kDelaySeconds || (last_drawn_ >= 0 && now - last_drawn_ < kIntervalSeconds)) {
    return;
  }
  last_drawn_ = now;
  const int percent =
      total == 0 ? 100
                 : static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
  char line[160];
  std::snprintf(line, sizeof line, "%s: %d%% (%llu of %llu %s), %.1f s", what_.c_str(), percent,
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                unit_.c_str(), elapsed);
  out_ << kErase << line << std::flush;
}

void ProgressLine::finish() {
  if (last_drawn_ < 0) {
    return;
  }
  out_ << kErase << std::flush;
  last_drawn_ = -1;
}

}  // namespace podsim::cli
