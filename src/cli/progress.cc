#include "cli/progress.h"

#include <chrono>
#include <cstdio>
#include <string>

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

ProgressLine& ProgressLine::every(double seconds) {
  lines_every_ = seconds;
  return *this;
}

bool ProgressLine::due(double& elapsed) {
  if (!enabled_) {
    return false;
  }
  const double now = clock_();
  elapsed = now - started_;
  if (lines_every_ > 0) {
    // A log: the first line after one interval, then one per interval.
    if ((last_drawn_ >= 0 ? now - last_drawn_ : elapsed) < lines_every_) {
      return false;
    }
  } else if (elapsed < kDelaySeconds ||
             (last_drawn_ >= 0 && now - last_drawn_ < kIntervalSeconds)) {
    return false;
  }
  last_drawn_ = now;
  return true;
}

void ProgressLine::draw(const char* line) {
  if (lines_every_ > 0) {
    out_ << line << '\n' << std::flush;
  } else {
    out_ << kErase << line << std::flush;
  }
}

void ProgressLine::update(uint64_t done, uint64_t total) {
  double elapsed = 0;
  if (!due(elapsed)) {
    return;
  }
  const int percent =
      total == 0 ? 100
                 : static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
  char line[200];
  std::snprintf(line, sizeof line, "%s: %d%% (%llu of %llu %s), %.1f s", what_.c_str(), percent,
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                unit_.c_str(), elapsed);
  draw(line);
}

void ProgressLine::count(uint64_t done) {
  double elapsed = 0;
  if (!due(elapsed)) {
    return;
  }
  char line[200];
  std::snprintf(line, sizeof line, "%s: %llu %s, %.1f s", what_.c_str(),
                static_cast<unsigned long long>(done), unit_.c_str(), elapsed);
  draw(line);
}

void ProgressLine::show(const std::function<std::string()>& text) {
  double elapsed = 0;
  if (!due(elapsed)) {
    return;
  }
  char seconds[40];
  std::snprintf(seconds, sizeof seconds, ", %.1f s", elapsed);
  std::string line = what_;
  line += ": ";
  line += text();
  line += seconds;
  draw(line.c_str());
}

void ProgressLine::finish() {
  if (lines_every_ > 0) {
    return;  // a log keeps its lines
  }
  if (last_drawn_ < 0) {
    return;
  }
  out_ << kErase << std::flush;
  last_drawn_ = -1;
}

}  // namespace podsim::cli
