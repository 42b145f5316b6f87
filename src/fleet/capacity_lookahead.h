// The capacity search (fleet/capacity.h) as a state machine, so that the
// probes it may need next can be evaluated together, ahead of need.
//
// The search is the same sequence of probes whatever the width: at each
// round the next `width` distinct rates of its decision tree (breadth first
// from where it stands: the probe it needs now, then the two it would need
// after either outcome, ...) are measured at once, and the search then
// walks on through the results it has. Probes off the path it takes are
// wasted work and are not reported, so the runs, the answer and the output
// are those of width 1 (plain sequential bisection) for any width; the
// wall time per round is one serve run, and a round settles up to
// log2(width + 1) bisection steps.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fleet/capacity.h"

namespace podsim::fleet {

// One measured probe: the run, or the error its serve run raised (thrown
// again, as the same type, only if the search's path reaches that rate).
struct Probe {
  // kOther: std::runtime_error; kEvents, kMemory, kWallTime: a work limit
  // (sim::WorkLimitExceeded).
  enum class Error { kNone, kStep, kInvalidArgument, kOther, kEvents, kMemory, kWallTime };
  CapacityRun run;
  Error error = Error::kNone;
  std::string message;
};

// Keeps the exception being handled in `p` (call it from a catch block):
// its kind and message, so every rank walks on alike.
void keep_current_error(Probe& p);
// Throws `p`'s error again as its type (a work limit as
// sim::WorkLimitExceeded, exit 1); nothing when it has none.
void rethrow_error(const Probe& p);

// Measures every rate of `rates` (distinct); results in the same order.
using BatchMeasure = std::function<std::vector<Probe>(const std::vector<double>& rates)>;

// search_capacity with up to `width` (>= 1) probes measured per round.
CapacityResult search_capacity_batched(double start, const BatchMeasure& measure,
                                       const CapacityOptions& options, size_t width);

// A probe's run or error as exact bytes (doubles bit for bit) and back;
// decode_probe throws std::runtime_error on bytes encode_probe did not write.
std::string encode_probe(const Probe& p);
Probe decode_probe(const std::string& bytes);

}  // namespace podsim::fleet
