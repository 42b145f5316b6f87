// Refined step-time buckets (docs/serving.md, "Step times"): each part of a
// step is bracketed between two simulated steps and costed at the bracket's
// centre, with a rigorous bound on its relative error.
//
// Step time does not decrease with batch or length, so a step x inside the
// cell [low, high] of a grid (low <= x <= high in every count) has
// t(low) <= t(x) <= t(high). The value reported is the harmonic mean
// c = 2 t(low) t(high) / (t(low) + t(high)), the one value whose relative
// error |c - t(x)| / t(x) is smallest in the worst case over the bracket:
// at most (t(high) - t(low)) / (t(high) + t(low)) (bracket_bound() computes it
// from the rounded value). When that exceeds the target, the cell's sides are
// halved and the step is bracketed again, until the target is met or the
// cell is the step itself (then the value is exact).
//
// The grid is a product grid: per phase and per count (batch, prompt_len,
// context_len), the bucket grid's lines (fleet/buckets.h) plus the lines
// refinement added. Splitting a side adds a line across the whole grid, so
// cells never overlap and every cell's corners are grid points: for steps
// x <= y, the cells' corners are ordered (low(x) <= low(y), high(x) <=
// high(y)), and so are the values: the reported step time never decreases
// with batch or length, whatever refinement has been done so far.
//
// Memory: one ordered set of lines per phase and count, O(lines); a bracket
// costs O(log lines).
#pragma once

#include <array>
#include <cstdint>
#include <set>

#include "config/serving_spec.h"
#include "fleet/step_timer.h"

namespace podsim::fleet {

// A cell of the grid: its lower and upper corners (equal in a count where
// the step sits on a line; equal in all counts when the step is a grid point).
struct Cell {
  config::ScenarioSpec low;
  config::ScenarioSpec high;
};

class RefinedGrid {
 public:
  // Batches are whole multiples of `batch_quantum`: the batch grid is laid
  // over batch / batch_quantum.
  RefinedGrid(uint32_t batch_steps_per_octave, uint32_t length_steps_per_octave,
              uint32_t batch_quantum);

  // The cell holding `step` (its batch a multiple of the quantum). O(log lines).
  Cell cell(const config::ScenarioSpec& step) const;
  // Halves every side of `cell` that holds a grid point strictly inside;
  // false when none does (the cell is a point or its sides are one apart).
  bool split(const Cell& cell);
  uint64_t lines_added() const { return lines_added_; }

 private:
  struct Side {
    uint64_t low = 0;
    uint64_t high = 0;
  };
  Side side(int phase, int count, uint64_t x, uint32_t steps) const;
  std::set<uint64_t>& lines(const config::ScenarioSpec& s, int count);

  uint32_t batch_steps_;
  uint32_t length_steps_;
  uint32_t quantum_;
  // [phase][count]: the lines refinement added, in grid units (batch in
  // quanta, lengths in tokens).
  std::array<std::array<std::set<uint64_t>, 3>, 2> added_;
  uint64_t lines_added_ = 0;
};

// The cost reported for a step bracketed by `low` and `high` (their times
// > 0, low's <= high's): the time at the bracket's centre (above), rounded
// to the picosecond; its energy and FLOPs (utilisation x time) the same
// mix of the corners' as the time.
StepCost bracket_centre(const StepCost& low, const StepCost& high);
// The largest relative error of `value` against any time in [low, high]:
// max((value - low) / low, (high - value) / high).
double bracket_bound(sim::Time value, sim::Time low, sim::Time high);

}  // namespace podsim::fleet
