// A randomized workload for the simulation kernel, run two ways: on a
// Simulation, and on a deliberately naive reference kernel (a std::map keyed by
// (time, priority, scheduling count)). Every event decides what to do next from
// a random stream seeded by its own label, so both runs make the same decisions
// as long as they execute the same events in the same order. The test compares
// the traces.
//
// The workload mixes what exercises the kernel: events at the current time
// (FIFO path), exact ties, priorities, far-future events, cancellable and plain
// events, cancellations of pending, run and already-cancelled events (from
// inside handlers), handler and callable targets.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulation.h"

namespace podsim::sim::testing {

struct StressConfig {
  uint64_t seed = 1;
  int initial_events = 200;
  int max_events = 20'000;  // events scheduled in total, including the initial ones
};

struct TraceEntry {
  int64_t time_ps = 0;
  int priority = 0;
  uint64_t label = 0;  // the event's scheduling count, which is also its sequence
  friend bool operator==(const TraceEntry&, const TraceEntry&) = default;
};

struct StressResult {
  std::vector<TraceEntry> executed;
  std::vector<bool> cancel_results;  // every cancel() answer, in call order
  uint64_t fingerprint = 0;
  std::size_t pending_at_end = 0;
  // What happened, so the test can check the workload did exercise the paths.
  uint64_t same_time_events = 0;
  uint64_t successful_cancels = 0;
};

// Runs the workload on a Simulation with the given options.
StressResult run_on_simulation(const StressConfig& config, Simulation::Options options);

// Runs it on the reference kernel; `fingerprint` folds the reference's own
// (time, priority, label) stream with EventFingerprint.
StressResult run_on_reference(const StressConfig& config);

}  // namespace podsim::sim::testing
