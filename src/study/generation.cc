#include "study/generation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "config/pricing_loader.h"
#include "cost/cost.h"
#include "workload/model_math.h"

namespace podsim::study {
namespace {

// Fewer decode steps than this are all simulated: bisection would simulate
// nearly all of them anyway (it always simulates the ends and the middle,
// and checks the middle of each half).
constexpr uint32_t kFewestToInterpolate = 5;

class Bisection {
 public:
  Bisection(double tolerance, const std::function<double(uint32_t)>& step_time_us)
      : tolerance_(tolerance), step_time_us_(step_time_us) {}

  double at(uint32_t context) {
    auto [it, inserted] = times_.try_emplace(context, 0.0);
    if (inserted)
      it->second = step_time_us_(context);
    return it->second;
  }

  // [a, b] with both ends simulated: simulate the midpoint; interpolate
  // when `check` and the linear prediction there is within the tolerance,
  // else bisect both halves (checked).
  void refine(uint32_t a, uint32_t b, bool check) {
    if (b - a < 2)
      return;
    const uint32_t m = a + (b - a) / 2;
    const double tm = at(m);
    if (check) {
      const double ta = at(a);
      const double tb = at(b);
      const double predicted = ta + (tb - ta) * static_cast<double>(m - a) / (b - a);
      const double error = tm > 0 ? std::abs(tm - predicted) / tm : 0.0;
      if (error <= tolerance_) {
        max_error_ = std::max(max_error_, error);
        return;
      }
    }
    refine(a, m, true);
    refine(m, b, true);
  }

  DecodeSamples samples() const {
    DecodeSamples s;
    for (const auto& [context, time] : times_) {
      s.contexts.push_back(context);
      s.times_us.push_back(time);
    }
    s.max_midpoint_error = max_error_;
    return s;
  }

 private:
  double tolerance_;
  const std::function<double(uint32_t)>& step_time_us_;
  std::map<uint32_t, double> times_;
  double max_error_ = 0;
};

}  // namespace

DecodeSamples sample_decode_steps(uint32_t first, uint32_t last, const GenerationOptions& options,
                                  const std::function<double(uint32_t)>& step_time_us) {
  if (options.every_step || last - first + 1 < kFewestToInterpolate) {
    DecodeSamples s;
    s.every_step = true;
    for (uint32_t c = first;; ++c) {
      s.contexts.push_back(c);
      s.times_us.push_back(step_time_us(c));
      if (c == last)
        break;
    }
    return s;
  }
  Bisection b(options.tolerance, step_time_us);
  b.at(first);
  b.at(last);
  b.refine(first, last, /*check=*/false);  // the middle is always simulated
  return b.samples();
}

std::vector<double> decode_step_times(const DecodeSamples& s) {
  std::vector<double> out;
  if (s.contexts.empty())
    return out;
  out.reserve(s.contexts.back() - s.contexts.front() + 1);
  out.push_back(s.times_us.front());
  for (size_t k = 1; k < s.contexts.size(); ++k) {
    const uint32_t a = s.contexts[k - 1];
    const uint32_t b = s.contexts[k];
    const double ta = s.times_us[k - 1];
    const double tb = s.times_us[k];
    for (uint32_t c = a + 1; c < b; ++c)
      out.push_back(ta + (tb - ta) * static_cast<double>(c - a) / (b - a));
    out.push_back(tb);
  }
  return out;
}

config::ScenarioSpec prefill_step(const config::ScenarioSpec& generation) {
  config::ScenarioSpec s = generation;
  s.phase = config::Phase::kPrefill;
  s.output_len = 0;
  return s;
}

config::ScenarioSpec decode_step(const config::ScenarioSpec& generation, uint32_t context) {
  config::ScenarioSpec s = generation;
  s.phase = config::Phase::kDecode;
  s.output_len = 0;
  s.prompt_len = 0;
  s.context_len = context;
  s.prefill_chunks = 0;
  return s;
}

namespace {

uint32_t first_decode_context(const config::ScenarioSpec& g) {
  return g.context_len + g.prompt_len;
}

uint32_t last_decode_context(const config::ScenarioSpec& g) {
  return first_decode_context(g) + g.output_len - 2;  // output_len >= 2
}

}  // namespace

config::ScenarioSpec reported_step(const config::ScenarioSpec& generation) {
  return generation.output_len <= 1 ? prefill_step(generation)
                                    : decode_step(generation, last_decode_context(generation));
}

std::string step_ranges(const std::vector<uint32_t>& contexts, uint32_t first_context) {
  std::string out;
  size_t k = 0;
  while (k < contexts.size()) {
    size_t end = k;
    while (end + 1 < contexts.size() && contexts[end + 1] == contexts[end] + 1)
      ++end;
    const uint32_t from = contexts[k] - first_context + 1;
    const uint32_t to = contexts[end] - first_context + 1;
    out += (out.empty() ? "" : ";") + std::to_string(from) +
           (end > k ? "-" + std::to_string(to) : std::string());
    k = end + 1;
  }
  return out;
}

namespace {

// A step that stops the generation: its result is the generation's status.
struct StepStopped {
  Evaluation step;
  std::string what;  // "prefill step", "decode step 255 (context 2302)"
  bool prefill = false;
};

// Runs the generation's steps with the limits the earlier steps left.
class StepRunner {
 public:
  StepRunner(const topo::Pod& pod, const config::WorkloadSpec& workload, const RunOptions& options)
      : pod_(pod),
        workload_(workload),
        options_(options),
        start_(std::chrono::steady_clock::now()) {
    options_.vs_healthy = false;
    options_.link_stats = false;
    options_.progress = nullptr;
  }

  Evaluation run(const config::ScenarioSpec& scenario, const std::string& what) {
    config::WorkloadSpec w = workload_;
    w.serving->scenario = scenario;
    RunOptions o = options_;
    o.limits = remaining();
    // The first step's estimate is a lower bound on the generation's: the
    // caller hears it once, as RunOptions::on_estimate promises.
    if (steps_++ > 0)
      o.on_estimate = nullptr;
    Evaluation e = evaluate_in_detail(pod_, w, o);
    events_ += e.result.serving().events();
    if (e.result.status() != podsim::Result::ok)
      throw StepStopped{std::move(e), what, scenario.phase == config::Phase::kPrefill};
    return e;
  }

 private:
  sim::WorkLimits remaining() const {
    sim::WorkLimits l = options_.limits;
    if (l.max_events > 0) {
      if (events_ >= l.max_events)
        throw sim::WorkLimitExceeded(sim::WorkLimitExceeded::Limit::kEvents,
                                     "the generation's steps executed " + std::to_string(events_) +
                                         " events, past --max-events " +
                                         std::to_string(l.max_events));
      l.max_events -= events_;
    }
    if (l.max_wall_seconds > 0) {
      const double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (spent >= l.max_wall_seconds)
        throw sim::WorkLimitExceeded(sim::WorkLimitExceeded::Limit::kWallTime,
                                     "the generation's steps ran past --max-wall-seconds");
      l.max_wall_seconds -= spent;
    }
    return l;
  }

  const topo::Pod& pod_;
  const config::WorkloadSpec& workload_;
  RunOptions options_;
  std::chrono::steady_clock::time_point start_;
  uint64_t events_ = 0;
  uint64_t steps_ = 0;  // steps run so far
};

std::string decode_label(uint32_t context, uint32_t first) {
  return "decode step " + std::to_string(context - first + 1) + " (context " +
         std::to_string(context) + ")";
}

// Model FLOPs of every step: the prefill's, and the decode steps' (affine
// in the context, so their sum is the count times the mean of the ends).
double generation_flops(const config::ServingSpec& serving, uint32_t decode_steps) {
  const config::ScenarioSpec& g = serving.scenario;
  config::ServingSpec step = serving;
  step.scenario = prefill_step(g);
  double flops = workload::model_flops(step);
  if (decode_steps == 0)
    return flops;
  step.scenario = decode_step(g, first_decode_context(g));
  const double first = workload::model_flops(step);
  step.scenario = decode_step(g, last_decode_context(g));
  const double last = workload::model_flops(step);
  return flops + decode_steps * (first + last) / 2;
}

// The step's energy over the slice, in joules; NaN when it was not
// computed (no power model, or out of range).
double step_joules(const Evaluation& step) {
  const podsim::Energy& e = step.result.serving().energy();
  return e.modelled() ? e.step_j() : std::nan("");
}

// The generation's energy: the prefill's and every decode step's, those not
// simulated interpolated between the simulated ones as their times are.
void fill_energy(const config::PodSpec& pod, const RunOptions& options,
                 const DecodeSamples& samples, const std::map<uint32_t, double>& decode_j,
                 double prefill_j, podsim::GenerationResult& out) {
  bool every_step = std::isfinite(prefill_j);
  for (const auto& [context, j] : decode_j)
    every_step = every_step && std::isfinite(j);
  if (!pod.chip.power.modelled || !every_step)
    return;  // no energy rather than a partial one
  double energy = prefill_j;
  if (!samples.contexts.empty()) {
    DecodeSamples joules = samples;
    for (size_t i = 0; i < joules.contexts.size(); ++i)
      joules.times_us[i] = decode_j.at(joules.contexts[i]);
    for (const double j : decode_step_times(joules))
      energy += j;
  }
  out.set_energy_j(energy);
  out.set_prefill_energy_j(prefill_j);
  if (out.tokens() > 0)
    out.set_j_per_token(energy / static_cast<double>(out.tokens()));
  if (out.total_us() > 0)
    out.set_mean_power_w(energy / (out.total_us() * 1e-6));
  if (options.pricing && out.tokens() > 0) {
    const config::ChipPriceSpec& price = config::require_price(*options.pricing, pod.chip.name);
    const double chips = static_cast<double>(pod.chip_count() - pod.dead_chips.size());
    const cost::CostFigures f =
        cost::price(*options.pricing, price,
                    {chips, out.total_us() * 1e-6, energy, static_cast<double>(out.tokens())});
    out.set_usd_per_m_tokens(f.usd_per_m_tokens);
    out.set_gco2e_per_m_tokens(f.gco2e_per_m_tokens);
  }
}

void fill_figures(const config::ServingSpec& serving, const config::PodSpec& pod,
                  const DecodeSamples& samples, double ttft_us, podsim::GenerationResult& out) {
  const config::ScenarioSpec& g = serving.scenario;
  const uint32_t steps = g.output_len - 1;
  const std::vector<double> times = decode_step_times(samples);
  double decode_us = 0;
  for (double t : times)
    decode_us += t;
  out.set_ttft_us(ttft_us);
  if (steps > 0) {
    out.set_tpot_mean_us(decode_us / steps);
    out.set_tpot_first_us(times.front());
    out.set_tpot_last_us(times.back());
    out.set_first_decode_context_len(first_decode_context(g));
    out.set_last_decode_context_len(last_decode_context(g));
  }
  const double total_us = ttft_us + decode_us;
  out.set_total_us(total_us);
  const uint64_t tokens = uint64_t{g.batch} * g.output_len;
  out.set_tokens(tokens);
  const auto chips = static_cast<double>(pod.chip_count());
  if (total_us > 0) {
    out.set_tokens_per_s(static_cast<double>(tokens) / (total_us * 1e-6));
    out.set_tokens_per_s_per_chip(out.tokens_per_s() / chips);
    out.set_mfu(generation_flops(serving, steps) /
                (total_us * 1e-6 * chips * pod.chip.peak_bf16_flops));
  }
  if (decode_us > 0)
    out.set_decode_tokens_per_s(static_cast<double>(uint64_t{g.batch} * steps) /
                                (decode_us * 1e-6));
  out.set_steps_mode(samples.every_step ? "every step" : "bisection");
  out.set_simulated_decode_steps(static_cast<uint32_t>(samples.contexts.size()));
  out.set_simulated_steps(step_ranges(samples.contexts, first_decode_context(g)));
  for (uint32_t c : samples.contexts)
    out.add_simulated_contexts(c);
  for (double t : samples.times_us)
    out.add_simulated_step_times_us(t);
  out.set_max_midpoint_error(samples.max_midpoint_error);
}

// The generation ends at step `s`: invalid (its diagnostics, nothing else
// filled) or oom (its memory, in `serving` and the generation's columns).
void stop(StepStopped& s, Evaluation& ev) {
  ev.result.set_status(s.step.result.status());
  if (s.step.result.status() == podsim::Result::invalid) {
    ev.error = std::move(s.step.error);
    ev.result.set_reason(s.step.result.reason());
    ev.result.clear_serving();
    ev.result.clear_generation();
    return;
  }
  ev.result.set_reason("the generation's " + s.what + ": " + s.step.result.reason());
  const uint64_t used = s.step.result.serving().memory().hbm_used_bytes();
  podsim::GenerationResult& g = *ev.result.mutable_generation();
  if (s.prefill) {
    g.set_prefill_hbm_used_bytes(used);
  } else {
    g.set_last_hbm_used_bytes(used);
  }
  g.set_fits(false);
  *ev.result.mutable_serving() = s.step.result.serving();
  ev.serving = std::move(s.step.serving);
}

}  // namespace

void evaluate_generation(const topo::Pod& pod, const config::WorkloadSpec& workload,
                         const RunOptions& options, Evaluation& ev) {
  const config::ServingSpec& serving = *workload.serving;
  const config::ScenarioSpec& g = serving.scenario;
  podsim::GenerationResult& out = *ev.result.mutable_generation();
  out.set_output_len(g.output_len);
  out.set_decode_steps(g.output_len - 1);
  out.set_step_tolerance(options.generation.every_step ? 0.0 : options.generation.tolerance);
  StepRunner runner(pod, workload, options);
  try {
    Evaluation prefill = runner.run(prefill_step(g), "prefill step");
    const podsim::Memory& pm = prefill.result.serving().memory();
    out.set_prefill_hbm_used_bytes(pm.hbm_used_bytes());
    bool fits = pm.fits();
    if (g.output_len == 1) {
      out.set_last_hbm_used_bytes(pm.hbm_used_bytes());
      out.set_fits(fits);
      fill_figures(serving, pod.spec(), DecodeSamples{}, prefill.result.serving().step_time_us(),
                   out);
      fill_energy(pod.spec(), options, DecodeSamples{}, {}, step_joules(prefill), out);
      out.set_steps_mode("every step");
      *ev.result.mutable_serving() = prefill.result.serving();
      ev.serving = std::move(prefill.serving);
      return;
    }
    const uint32_t first = first_decode_context(g);
    const uint32_t last = last_decode_context(g);
    // The last step first: the largest KV cache, so the one that may not fit.
    Evaluation last_step = runner.run(decode_step(g, last), decode_label(last, first));
    const podsim::Memory& lm = last_step.result.serving().memory();
    out.set_last_hbm_used_bytes(lm.hbm_used_bytes());
    fits = fits && lm.fits();
    out.set_fits(fits);
    uint32_t done = 0;
    std::map<uint32_t, double> decode_j;  // each simulated decode step's energy
    const std::function<double(uint32_t)> time_at = [&](uint32_t context) {
      if (options.progress)
        options.progress(++done, g.output_len - 1);
      if (context == last) {
        decode_j[context] = step_joules(last_step);
        return last_step.result.serving().step_time_us();
      }
      const Evaluation step = runner.run(decode_step(g, context), decode_label(context, first));
      decode_j[context] = step_joules(step);
      return step.result.serving().step_time_us();
    };
    const DecodeSamples samples = sample_decode_steps(first, last, options.generation, time_at);
    fill_figures(serving, pod.spec(), samples, prefill.result.serving().step_time_us(), out);
    fill_energy(pod.spec(), options, samples, decode_j, step_joules(prefill), out);
    *ev.result.mutable_serving() = last_step.result.serving();
    ev.serving = std::move(last_step.serving);
  } catch (StepStopped& s) {
    stop(s, ev);
  }
}

}  // namespace podsim::study
