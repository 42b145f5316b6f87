#include "fleet/step_memo.h"

#include <algorithm>
#include <stdexcept>

#include "fleet/buckets.h"

namespace podsim::fleet {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

uint32_t narrow(uint64_t v) {
  return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
}

uint64_t round_to(uint64_t v, uint64_t q) {
  return ceil_div(v, q) * q;
}

}  // namespace

StepMemo::StepMemo(StepOracle oracle, MemoOptions options)
    : oracle_(std::move(oracle)), options_(options) {
  if (options_.batch_quantum == 0)
    options_.batch_quantum = 1;
  if (options_.refine)
    grid_ = std::make_unique<RefinedGrid>(options_.batch_steps_per_octave,
                                          options_.length_steps_per_octave, options_.batch_quantum);
}

void StepMemo::new_run() {
  if (!grid_)
    return;
  grid_ = std::make_unique<RefinedGrid>(options_.batch_steps_per_octave,
                                        options_.length_steps_per_octave, options_.batch_quantum);
  stats_.max_relative_error = 0;
  stats_.refinements = 0;
}

uint32_t StepMemo::batch_bucket(uint64_t batch) const {
  return narrow(
      round_to(bucket_up(batch, options_.batch_steps_per_octave), options_.batch_quantum));
}

config::ScenarioSpec StepMemo::prefill_scenario(const StepShape& shape) const {
  config::ScenarioSpec s;
  s.phase = config::Phase::kPrefill;
  const uint64_t n = shape.prefill_sequences;
  s.batch = batch_bucket(n);
  s.prompt_len =
      narrow(bucket_up(ceil_div(shape.prefill_tokens, n), options_.length_steps_per_octave));
  s.context_len = narrow(
      bucket_up(ceil_div(shape.prefill_context_tokens, n), options_.length_steps_per_octave));
  return s;
}

config::ScenarioSpec StepMemo::decode_scenario(const StepShape& shape) const {
  config::ScenarioSpec s;
  s.phase = config::Phase::kDecode;
  const uint64_t n = shape.decode_sequences;
  s.batch = batch_bucket(n);
  s.context_len =
      narrow(bucket_up(ceil_div(shape.decode_context_tokens, n), options_.length_steps_per_octave));
  return s;
}

config::ScenarioSpec StepMemo::exact_scenario(const StepShape& shape, config::Phase phase) const {
  config::ScenarioSpec s;
  s.phase = phase;
  const bool prefill = phase == config::Phase::kPrefill;
  const uint64_t n = prefill ? shape.prefill_sequences : shape.decode_sequences;
  s.batch = narrow(round_to(n, options_.batch_quantum));
  if (prefill)
    s.prompt_len = narrow(ceil_div(shape.prefill_tokens, n));
  s.context_len =
      narrow(ceil_div(prefill ? shape.prefill_context_tokens : shape.decode_context_tokens, n));
  return s;
}

config::ScenarioSpec StepMemo::lower_edge(const config::ScenarioSpec& s) const {
  config::ScenarioSpec low = s;
  const uint64_t b = bucket_floor(s.batch, options_.batch_steps_per_octave);
  low.batch = narrow(round_to(b, options_.batch_quantum));
  if (s.phase == config::Phase::kPrefill)
    low.prompt_len = narrow(bucket_floor(s.prompt_len, options_.length_steps_per_octave));
  if (s.context_len > 0)
    low.context_len = narrow(bucket_floor(s.context_len, options_.length_steps_per_octave));
  return low;
}

StepCost StepMemo::lookup(const config::ScenarioSpec& s) {
  ++stats_.lookups;
  const auto key = std::make_tuple(static_cast<int>(s.phase), s.batch, s.prompt_len, s.context_len);
  const auto it = memo_.find(key);
  if (it != memo_.end())
    return it->second;
  const StepCost c = oracle_(s);
  const sim::Time t = c.time;
  ++stats_.oracle_calls;
  if (t <= sim::Time())
    throw std::logic_error("a step oracle returned a step time <= 0");
  if (options_.measure_error) {
    const config::ScenarioSpec low = lower_edge(s);
    if (!(low == s)) {
      const sim::Time tl = oracle_(low).time;
      ++stats_.oracle_calls;
      const double err = (t.to_us() - tl.to_us()) / t.to_us();
      stats_.max_relative_error = std::max(stats_.max_relative_error, err);
    }
  }
  memo_.emplace(key, c);
  stats_.entries = memo_.size();
  return c;
}

StepCost StepMemo::point(const config::ScenarioSpec& s) {
  const auto key = std::make_tuple(static_cast<int>(s.phase), s.batch, s.prompt_len, s.context_len);
  const auto it = memo_.find(key);
  if (it != memo_.end())
    return it->second;
  const StepCost c = oracle_(s);
  ++stats_.oracle_calls;
  if (c.time <= sim::Time())
    throw std::logic_error("a step oracle returned a step time <= 0");
  memo_.emplace(key, c);
  stats_.entries = memo_.size();
  return c;
}

StepCost StepMemo::refined(const config::ScenarioSpec& x) {
  ++stats_.lookups;
  for (;;) {
    const Cell cell = grid_->cell(x);
    const StepCost low = point(cell.low);
    const StepCost high = cell.high == cell.low ? low : point(cell.high);
    // A step time that falls between the corners breaks the bracket: the
    // cell is split until it is the step itself.
    if (low.time <= high.time) {
      const StepCost c = bracket_centre(low, high);
      const double bound = bracket_bound(c.time, low.time, high.time);
      if (bound <= options_.max_error || cell.low == cell.high) {
        stats_.max_relative_error = std::max(stats_.max_relative_error, bound);
        return c;
      }
    }
    if (!grid_->split(cell))
      throw std::logic_error("a step-time cell that is not a point cannot be split");
    stats_.refinements = grid_->lines_added();
  }
}

StepCost StepMemo::cost(const StepShape& shape) {
  sim::Time t;
  double flops_us = 0;  // utilisation x time
  double joules = 0;
  bool modelled = true;
  for (int part = 0; part < 2; ++part) {
    if ((part == 0 ? shape.prefill_sequences : shape.decode_sequences) == 0)
      continue;
    const StepCost c = grid_ ? refined(exact_scenario(shape, part == 0 ? config::Phase::kPrefill
                                                                       : config::Phase::kDecode))
                             : lookup(part == 0 ? prefill_scenario(shape) : decode_scenario(shape));
    t += c.time;
    flops_us += c.mfu * c.time.to_us();
    joules += c.energy_j;
    modelled = modelled && c.energy_modelled;
  }
  if (!modelled)
    joules = 0;
  return StepCost(t, t > sim::Time() ? flops_us / t.to_us() : 0, joules,
                  modelled && t > sim::Time());
}

}  // namespace podsim::fleet
