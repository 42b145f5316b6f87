// podsim.sweep(): a sweep file's points run on worker threads while Python
// takes their results one at a time, in the sweep's order (point 0, 1, ...),
// each as soon as it and the points before it are done. The order, the set
// of results and each result's bytes are the same for any number of jobs,
// and the same as `podsim sweep --format jsonl` (sweep/ordered_runner.h,
// sweep/point_run.h: the functions the command calls).
//
// Memory stays flat: at most a window of finished results waits for the
// caller (the runner's own, plus `kWaiting` here). Destroying the stream
// early (a generator closed half way) stops the workers after the points
// they are computing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/sweep_spec.h"
#include "python/api.h"
#include "sweep/point_run.h"
#include "sweep/sweep_budget.h"

namespace podsim::python {

struct SweepRequest {
  std::string sweep_file;
  unsigned jobs = 1;             // threads, 1 to 1024
  std::vector<std::string> set;  // "path=value", applied to every point after the file's
  std::optional<std::string> calibration_file;
  std::optional<std::string> pricing_file;
  sim::WorkLimits limits = sim::kDefaultWorkLimits;  // each point's and the whole sweep's
};

class SweepStream {
 public:
  // Loads the sweep file (throws config::InputError, UsageError) and starts
  // the points.
  explicit SweepStream(const SweepRequest& request);
  ~SweepStream();
  SweepStream(const SweepStream&) = delete;
  SweepStream& operator=(const SweepStream&) = delete;

  uint64_t points() const { return spec_.points; }
  const std::string& name() const { return spec_.name; }
  // The next point's podsim.Result (binary), blocking until it is done;
  // nullopt after the last. Rethrows what stopped the sweep (a limit, a
  // bug); after the last point, config::InputError when every point was
  // invalid (the CLI's exit 2).
  std::optional<std::string> next();
  // Waits at most `timeout` for next() to have something to return (a
  // result, the end or an error); true once it has. Lets the caller look
  // for a Ctrl-C between waits.
  bool wait_for(std::chrono::milliseconds timeout);

 private:
  static constexpr size_t kWaiting = 16;  // results held for the caller
  void produce();

  config::SweepSpec spec_;
  sweep::PointOptions options_;
  sweep::BaseInputs bases_;
  sweep::SweepBudget budget_;
  unsigned jobs_ = 1;

  std::mutex mu_;
  std::condition_variable ready_;     // a result, the end or an error
  std::condition_variable has_room_;  // the caller took one, or stopping
  std::deque<std::string> waiting_;
  bool done_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  uint64_t taken_ = 0;
  uint64_t invalid_ = 0;
  std::string first_invalid_;
  std::thread producer_;
};

}  // namespace podsim::python
