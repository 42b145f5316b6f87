// A whole generation (scenario phase GENERATION, issue 14 point 1): the
// prefill of a batch's prompts, then every decode step with its growing
// context, as one result.
//
// Steps. The prefill step processes prompt_len tokens per sequence after
// context_len cached ones; its LM head samples each sequence's first output
// token. Decode step i (i = 1 .. output_len - 1) feeds token i and samples
// token i + 1, with c_i = context_len + prompt_len + i - 1 tokens already in
// the KV cache (the decode scenario's context_len; the step attends over
// c_i + 1). The last token is sampled, never fed back, so the cache ends
// holding context_len + prompt_len + output_len - 1 tokens.
//
// Figures (podsim.GenerationResult). TTFT is the prefill step's time: the
// first token exists when the prefill ends. TPOT is a decode step's time;
// its mean is (total - TTFT) / (output_len - 1), as serving benchmarks
// define it. Total = TTFT + every decode step; tokens/s = batch x output_len
// / total; MFU = model FLOPs of every step (each decode step at its own
// context) / (total x chips x bf16 peak). Memory: the prefill step's and the
// last decode step's (the largest KV cache; a decode step's footprint grows
// with its context, so the last one bounds every decode step).
//
// Interpolation. A decode step's time is, over the context, a sum of
// per-operation costs each close to linear in the context (attention and its
// KV reads grow linearly; nothing else depends on it), with kinks where an
// operation turns from one bound to another or a collective stops hiding
// it. So the decode steps are simulated at the first and last contexts and
// the middle one, and each interval between simulated contexts is bisected:
// its midpoint is simulated and compared with the linear prediction from
// the ends; when the relative error is at most the tolerance, the interval's
// steps between simulated points are interpolated linearly, otherwise both
// halves are bisected in turn. The result names every simulated step and the
// largest midpoint error found. With every_step (or fewer than 5 decode
// steps) every step is simulated. tests/study/generation_test.cc holds the
// interpolated generation within 0.5% of simulating every step.
//
// Cost: one prefill simulation plus, for a decode time close to linear in
// the context, 5 decode simulations; at most output_len - 1.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "config/serving_spec.h"
#include "study/evaluate.h"

namespace podsim::study {

// The decode steps simulated and the time of each, over the contexts
// [first, last] of a generation's decode steps.
struct DecodeSamples {
  std::vector<uint32_t> contexts;  // simulated, ascending, first and last included
  std::vector<double> times_us;    // their step times
  bool every_step = false;
  double max_midpoint_error = 0;  // relative; 0 when every step was simulated
};

// Chooses the contexts to simulate in [first, last] (first <= last) by the
// bisection above, calling `step_time_us` once per chosen context. Pure
// apart from `step_time_us`; O(simulated steps x log).
DecodeSamples sample_decode_steps(uint32_t first, uint32_t last, const GenerationOptions& options,
                                  const std::function<double(uint32_t)>& step_time_us);

// Every decode step's time from first to last context, the simulated ones
// as simulated and the others linearly interpolated between their
// neighbours. O(last - first).
std::vector<double> decode_step_times(const DecodeSamples& samples);

// The scenario of a generation's prefill step, and of its decode step at
// `context` tokens already in the cache (output_len 0: single steps).
config::ScenarioSpec prefill_step(const config::ScenarioSpec& generation);
config::ScenarioSpec decode_step(const config::ScenarioSpec& generation, uint32_t context);

// The step the result's `serving` describes: the last decode step, or the
// prefill when output_len is 1.
config::ScenarioSpec reported_step(const config::ScenarioSpec& generation);

// Decode steps as "1-4;9;12-255": 1-based step numbers, runs of consecutive
// ones as ranges.
std::string step_ranges(const std::vector<uint32_t>& contexts, uint32_t first_context);

// Evaluates a generation (workload.serving->scenario.is_generation()) into
// `ev`, whose inputs are filled: each step is study::evaluate_in_detail() of
// the step's scenario; the result's `serving` is reported_step()'s and
// `generation` holds the figures above. A step that cannot be lowered makes
// the result invalid; a prefill or last decode step that does not fit makes
// it oom (without allow_oom), naming the step. Work limits bound the whole
// generation: each step gets what the earlier ones left.
void evaluate_generation(const topo::Pod& pod, const config::WorkloadSpec& workload,
                         const RunOptions& options, Evaluation& ev);

}  // namespace podsim::study
