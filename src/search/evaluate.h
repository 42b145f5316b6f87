// The one place the search calls the engine: a serving workload on a pod,
// lowered, checked against HBM, and (when asked) simulated, as `podsim run`
// does with its default compute model (roofline, the pod's calibration).
//
// Kept in one small file so that a shared evaluation entry point (a study
// layer's evaluate(pod, workload, options)) can replace it without touching
// the search. Pure functions of their arguments: nothing is shared between
// calls, so calls run side by side on several threads (the pod is only read;
// topo::Pod is immutable after construction).
#pragma once

#include <cstdint>
#include <string>

#include "config/workload_spec.h"
#include "net/network.h"
#include "sim/work_budget.h"
#include "topo/pod.h"

namespace podsim::search {

enum class Status {
  kOk,       // lowered, fits in HBM (and simulated, for simulate())
  kInvalid,  // the loader or the lowering rejected it
  kOom,      // weights + KV cache + activations exceed a chip's HBM
};

const char* to_string(Status s);

struct Evaluation {
  Status status = Status::kInvalid;
  std::string reason;  // why not kOk
  // Filled by simulate() when kOk; the figures of engine::ServingSummary.
  double step_time_us = 0;
  double latency_us = 0;  // decode: time per output token; prefill: TTFT (both the step time)
  double tokens_per_s_per_chip = 0;
  double mfu = 0;
  uint64_t hbm_used_bytes = 0;  // per chip; filled by check() too
  // Filled by check() when kOk: the step time's lower bound on every network
  // model (search/step_bound.h) and the tokens/s per chip at that time, an
  // upper bound on the simulated figure (engine::summarize_serving, the same
  // formula, decreasing in the step time).
  double bound_latency_us = 0;
  double bound_tokens_per_s_per_chip = 0;
  // Filled by check() when kOk: the step has collectives the analytical
  // model may time well apart from flow (engine/model_caveats.h), so the
  // pruning allows them a wider error (search.h, kOutOfStepError).
  bool out_of_step = false;
  // The step's energy over the slice (engine/energy.h), when the chip has a
  // power model (energy_modelled); docs/energy.md.
  bool energy_modelled = false;
  double j_per_token = 0;
  double tokens_per_j = 0;
  double mean_power_w = 0;
  // With a pricing file (Problem::set_pricing): the step's cost and
  // emissions per million tokens (cost/cost.h); priced false otherwise.
  bool priced = false;
  double usd_per_m_tokens = 0;
  double gco2e_per_m_tokens = 0;
};

// Lowers the serving step and compares its memory per chip with the chip's
// HBM, without simulating; when it fits, bounds its step time from below
// (search/step_bound.h). The workload must be a serving step loaded against
// `pod`. O(program size).
Evaluation check(const topo::Pod& pod, const config::WorkloadSpec& workload);

// check(), then, when it fits, one step on the `network` model. Each call
// builds its own compute model, network and simulation.
Evaluation simulate(const topo::Pod& pod, const config::WorkloadSpec& workload, net::Model network,
                    const sim::WorkLimits& limits = sim::kDefaultWorkLimits);

}  // namespace podsim::search
