#include "chip/tensorcore/timeline.h"

#include <algorithm>

#include "chip/chip_rates.h"

namespace podsim::chip::tensorcore {

std::vector<UnitSlice> kernel_timeline(const KernelSteps& k, const CoreRates& r,
                                       const OpTiming& timing) {
  const uint64_t n = std::max<uint64_t>(k.steps, 1);
  const double b = r.dma_bytes_per_cycle;
  const double lat = r.dma_latency_cycles;
  // The same parts as play() (pipeline.cc), in cycles.
  const double in = k.in_bytes > 0 ? lat + k.in_bytes / b : 0;
  const double out = k.out_bytes > 0 ? lat + k.out_bytes / b : 0;
  const double both = k.in_bytes + k.out_bytes > 0 ? lat + (k.in_bytes + k.out_bytes) / b : 0;
  const double issue = r.step_issue_cycles;
  const double busy = std::max(k.mxu_cycles, k.vector_cycles) + issue;
  const double interval = std::max(busy, both);
  const sim::Time busy_end = timing.time - timing.units.overhead;

  std::vector<UnitSlice> slices;
  const auto at = [&](double cycles) {
    return std::min(time_from_seconds(cycles / r.clock_hz), busy_end);
  };
  const auto add = [&](Unit unit, UnitWork work, double from, double to, uint64_t first = 0,
                       uint64_t count = 0) {
    const sim::Time start = at(from);
    const sim::Time end = at(to);
    if (end > start)
      slices.push_back({unit, work, start, end, first, count});
  };
  add(Unit::kDma, UnitWork::kFetch, 0, in);
  add(Unit::kMxu, UnitWork::kFill, in, in + k.fill_cycles);
  const double first_start = in + k.fill_cycles;
  // Steps [first, first + count) as one slice per track; the last of them
  // shapes each slice's end (a step's issue, its units, its transfers).
  const auto steps = [&](uint64_t first, uint64_t count) {
    const double s0 = first_start + static_cast<double>(first) * interval;
    const double sl = first_start + static_cast<double>(first + count - 1) * interval;
    add(Unit::kIssue, UnitWork::kSteps, s0, sl + issue, first, count);
    add(Unit::kMxu, UnitWork::kSteps, s0 + issue, sl + issue + k.mxu_cycles, first, count);
    add(Unit::kVector, UnitWork::kSteps, s0 + issue, sl + issue + k.vector_cycles, first, count);
    // Every step but the last overlaps the next fetch and the previous write-back.
    const uint64_t moving = std::min(count, n - 1 - first);
    if (moving > 0) {
      const double sm = first_start + static_cast<double>(first + moving - 1) * interval;
      add(Unit::kDma, UnitWork::kTransfers, s0, sm + both, first, moving);
    }
  };
  if (n <= 2 * kShownSteps) {
    for (uint64_t i = 0; i < n; ++i)
      steps(i, 1);
  } else {
    for (uint64_t i = 0; i < kShownSteps; ++i)
      steps(i, 1);
    steps(kShownSteps, n - 2 * kShownSteps);
    for (uint64_t i = n - kShownSteps; i < n; ++i)
      steps(i, 1);
  }
  const double last_end = first_start + static_cast<double>(n - 1) * interval + busy;
  add(Unit::kDma, UnitWork::kWriteBack, last_end, last_end + out);
  if (timing.time > busy_end)
    slices.push_back({Unit::kIssue, UnitWork::kOverhead, busy_end, timing.time, 0, 0});
  return slices;
}

}  // namespace podsim::chip::tensorcore
