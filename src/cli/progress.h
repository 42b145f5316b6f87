// A one-line progress report for long runs, redrawn in place on a terminal:
//   "simulating: 45% (1234567 of 2743482 instructions), 1.2 s"
//
// Shown only when the caller enables it (stderr is a terminal and --quiet was
// not given). Silent for the first half second, so quick runs print nothing;
// then redrawn at most five times a second, so a callback made every few
// thousand instructions costs a clock read. The line is erased when the run
// ends (finish() or the destructor), leaving stderr as it was.
//
// every(seconds) makes it a log instead, for a stderr that is not a terminal
// (`serve` and `capacity` under CI): a whole line every `seconds`, the first
// after `seconds`, nothing erased. count() is update() for work whose total
// is not known: the line says how many so far ("serving: 1234567 events,
// 12.0 s").
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace podsim::cli {

// serve and capacity on a stderr that is not a terminal: a line this often.
inline constexpr double kProgressLogSeconds = 10;

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

  // Lines, not a line redrawn in place (above). Returns *this.
  ProgressLine& every(double seconds);

  void update(uint64_t done, uint64_t total);
  void count(uint64_t done);
  // `text` is built only when a line is due: the caller passes a function.
  void show(const std::function<std::string()>& text);
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
  double lines_every_ = 0;  // > 0: a log of lines this far apart

  // Whether a line is due now; if so, notes it drawn and gives the elapsed time.
  bool due(double& elapsed);
  void draw(const char* line);
};

}  // namespace podsim::cli
