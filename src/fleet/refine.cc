#include "fleet/refine.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "fleet/buckets.h"

namespace podsim::fleet {
namespace {

constexpr int kBatch = 0;
constexpr int kPrompt = 1;
constexpr int kContext = 2;

uint32_t narrow_count(uint64_t v) {
  return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
}

int phase_index(const config::ScenarioSpec& s) {
  return s.phase == config::Phase::kPrefill ? 0 : 1;
}

}  // namespace

RefinedGrid::RefinedGrid(uint32_t batch_steps_per_octave, uint32_t length_steps_per_octave,
                         uint32_t batch_quantum)
    : batch_steps_(batch_steps_per_octave),
      length_steps_(length_steps_per_octave),
      quantum_(std::max<uint32_t>(1, batch_quantum)) {}

RefinedGrid::Side RefinedGrid::side(int phase, int count, uint64_t x, uint32_t steps) const {
  // A count of 0 (no prompt in a decode, no cache yet) and values on the
  // bucket grid's lines are exact.
  const uint64_t down = bucket_down(x, steps);
  if (x == 0 || down == x)
    return Side{x, x};
  Side s{down, bucket_up(x, steps)};
  const std::set<uint64_t>& added = added_[phase][count];
  const auto it = added.lower_bound(x);
  if (it != added.end() && *it == x)
    return Side{x, x};
  if (it != added.end())
    s.high = std::min(s.high, *it);
  if (it != added.begin())
    s.low = std::max(s.low, *std::prev(it));
  return s;
}

Cell RefinedGrid::cell(const config::ScenarioSpec& step) const {
  const int p = phase_index(step);
  Cell c{step, step};
  const Side b = side(p, kBatch, step.batch / quantum_, batch_steps_);
  c.low.batch = narrow_count(b.low * quantum_);
  c.high.batch = narrow_count(b.high * quantum_);
  const Side prompt = side(p, kPrompt, step.prompt_len, length_steps_);
  c.low.prompt_len = narrow_count(prompt.low);
  c.high.prompt_len = narrow_count(prompt.high);
  const Side context = side(p, kContext, step.context_len, length_steps_);
  c.low.context_len = narrow_count(context.low);
  c.high.context_len = narrow_count(context.high);
  return c;
}

std::set<uint64_t>& RefinedGrid::lines(const config::ScenarioSpec& s, int count) {
  return added_[phase_index(s)][count];
}

bool RefinedGrid::split(const Cell& cell) {
  const std::array<std::pair<uint64_t, uint64_t>, 3> sides = {
      std::pair<uint64_t, uint64_t>{cell.low.batch / quantum_, cell.high.batch / quantum_},
      {cell.low.prompt_len, cell.high.prompt_len},
      {cell.low.context_len, cell.high.context_len}};
  bool any = false;
  for (int count = kBatch; count <= kContext; ++count) {
    const auto [lo, hi] = sides[static_cast<size_t>(count)];
    if (hi < lo + 2)
      continue;
    if (lines(cell.low, count).insert(lo + (hi - lo) / 2).second) {
      ++lines_added_;
      any = true;
    }
  }
  return any;
}

StepCost bracket_centre(const StepCost& low, const StepCost& high) {
  const int64_t tl = low.time.count_ps();
  const int64_t th = high.time.count_ps();
  if (th <= tl)
    return low;
  // 2 tl th / (tl + th) in long double: the product passes 2^63 for steps
  // over about 3 ms, the ratio keeps 64 bits of mantissa.
  const long double l = static_cast<long double>(tl);
  const long double h = static_cast<long double>(th);
  const auto centre =
      std::clamp(static_cast<int64_t>(std::llround(2.0L * l * h / (l + h))), tl, th);
  // The same mix of the corners for energy and FLOPs as for the time.
  const double w = static_cast<double>(th - centre) / static_cast<double>(th - tl);
  const sim::Time t = sim::Time::ps(centre);
  const double flops_us = w * low.mfu * low.time.to_us() + (1 - w) * high.mfu * high.time.to_us();
  const bool modelled = low.energy_modelled && high.energy_modelled;
  const double joules = modelled ? w * low.energy_j + (1 - w) * high.energy_j : 0.0;
  return StepCost(t, flops_us / t.to_us(), joules, modelled);
}

double bracket_bound(sim::Time value, sim::Time low, sim::Time high) {
  const auto v = static_cast<double>(value.count_ps());
  const auto l = static_cast<double>(low.count_ps());
  const auto h = static_cast<double>(high.count_ps());
  return std::max((v - l) / l, (h - v) / h);
}

}  // namespace podsim::fleet
