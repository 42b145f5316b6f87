// A one-line progress report for long runs, redrawn in place on a terminal:
//   "simulating: 45% (1234567 of 2743482 instructions), 1.2 s"
//
// Shown only when the caller enables it (stderr is a terminal and --quiet was
// not given). Silent for the first half second, so quick runs print nothing;
// then redrawn at most five times a second, so a callback made every few
// thousand instructions costs a clock read. The line is erased when the run
// ends (finish() or the destructor), leaving stderr as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace podsim::cli {

class ProgressLine {
 public:
  // Seconds on a monotonic clock; tests pass a fake one.
  using Clock = std::function<double()>;

  static constexpr double kDelaySeconds = 0.5;     // nothing is drawn before this
  static constexpr double kIntervalSeconds = 0.2;  // at most five redraws a second

  // `what` names the work ("simulating"), `unit` what is counted
  // ("instructions"). Disabled: every call does nothing.
  ProgressLine(std::ostream& out, bool enabled, std::string what, std::string unit,
               Clock clock = steady_seconds);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(uint64_t done, uint64_t total);
  // Erases the line if one was drawn; later updates draw again.
  void finish();

  static double steady_seconds();

 private:
  std::ostream& out_;
  bool enabled_;
  std::string what_;
  std::string unit_;
  Clock clock_;
  double started_ = 0;
  double last_drawn_ = -1;  // < 0: nothing on screen
};

}  // namespace podsim::cli
