// Step times (and energies) from a costly oracle (the pod simulation,
// fleet/engine_oracle.h), memoised by bucket (fleet/buckets.h).
//
// A step is costed as two simulated steps, added:
//  - its prefill part as a PREFILL of the prefilling sequences, each with the
//    mean of their new tokens (rounded up) on top of the mean of their cached
//    tokens (rounded up);
//  - its decode part as a DECODE of the decoding sequences at the mean of
//    their cached tokens (rounded up).
// Every count is then rounded up to its bucket (batch, lengths), and the
// batch up to a multiple of `batch_quantum` (the workload's data-parallel
// replicas times its micro-batches, which the batch must divide into).
// Why this is honest and where it is not is in docs/serving.md ("Mixed
// steps"): weights are read once per part (a fused step reads them once),
// so a mixed step is over-costed by up to one weight read; means stand for
// each sequence's own length (exact for the linear terms, attention's
// quadratic prefill term is under-costed by the lengths' variance).
//
// With `refine` (fleet/refine.h), each part's exact counts (the means
// rounded up, the batch up to the quantum) are instead bracketed between two
// simulated grid points and costed at the bracket's centre, the grid refined
// where a bracket's error bound exceeds `max_error`.
//
// Memo lookups are O(log entries) (a refined lookup O(log entries) per
// bracket tried); the memo grows with the buckets met, a few hundred for a
// day-long trace.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>

#include "config/serving_spec.h"
#include "fleet/refine.h"
#include "fleet/step_timer.h"

namespace podsim::fleet {

// The time of one step of `scenario` (phase, batch, prompt_len, context_len;
// micro_batches and prefill_chunks are the oracle's business).
using StepOracle = std::function<StepCost(const config::ScenarioSpec& scenario)>;

struct MemoOptions {
  uint32_t batch_steps_per_octave = 8;
  uint32_t length_steps_per_octave = 8;
  uint32_t batch_quantum = 1;
  // Also ask the oracle for each bucket's lower edge and keep the largest
  // relative difference: an upper bound on the bucketing's error for the
  // steps met, given that step time does not decrease with batch or length.
  bool measure_error = false;
  // Refined buckets instead of rounding up (measure_error is then moot: the
  // bound comes with every bracket), each part's bound at most max_error.
  bool refine = false;
  double max_error = 0.01;
};

struct MemoStats {
  uint64_t lookups = 0;
  uint64_t entries = 0;       // buckets met
  uint64_t oracle_calls = 0;  // entries, plus their lower edges when measured
  // Measured: (t(bucket) - t(lower edge)) / t(bucket); refined: the largest
  // bound on |t(reported) - t(exact)| / t(exact) over the parts costed.
  double max_relative_error = 0;
  uint64_t refinements = 0;  // grid lines added by refinement
};

class StepMemo final : public StepTimer {
 public:
  StepMemo(StepOracle oracle, MemoOptions options);

  sim::Time step_time(const StepShape& shape) override { return cost(shape).time; }
  // Mixed steps: the parts' times and energies added, their utilisations
  // time-weighted (the energy is modelled when both parts' are). A bucketed
  // step's energy is its bucket's simulated step's, as its time is.
  StepCost cost(const StepShape& shape) override;
  const MemoStats& stats() const { return stats_; }
  // A new run: refinement starts again from the bucket grid (its bound and
  // lines counted afresh), while the simulated steps are kept. So a run's
  // step times depend on its own steps only, never on the runs before it
  // (a capacity search gives the same runs on any number of threads).
  // Nothing changes without refinement.
  void new_run();
  const MemoOptions& options() const { return options_; }

  // The bucketed scenario a part of a step is simulated as (for tests).
  config::ScenarioSpec prefill_scenario(const StepShape& shape) const;
  config::ScenarioSpec decode_scenario(const StepShape& shape) const;
  // A part's exact counts: means rounded up, the batch up to the quantum.
  config::ScenarioSpec exact_scenario(const StepShape& shape, config::Phase phase) const;

 private:
  StepCost lookup(const config::ScenarioSpec& s);
  // Refined: the exact step `x` costed at the centre of its cell's bracket.
  StepCost refined(const config::ScenarioSpec& x);
  // One grid point, simulated once.
  StepCost point(const config::ScenarioSpec& s);
  config::ScenarioSpec lower_edge(const config::ScenarioSpec& s) const;
  uint32_t batch_bucket(uint64_t batch) const;

  StepOracle oracle_;
  MemoOptions options_;
  // (phase, batch, prompt_len, context_len) -> step time, MFU and energy.
  std::map<std::tuple<int, uint32_t, uint32_t, uint32_t>, StepCost> memo_;
  MemoStats stats_;
  std::unique_ptr<RefinedGrid> grid_;  // with refine
};

}  // namespace podsim::fleet
