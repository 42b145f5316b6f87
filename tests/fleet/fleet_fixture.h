// Shared by the fleet tests: step-time formulas standing in for the pod
// simulation, and fleets built from explicit requests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fleet/fleet_sim.h"
#include "fleet/step_timer.h"

namespace podsim::fleet::testing {

// t = fixed + per_prefill_token x new tokens + per_sequence x decodes +
//     per_context_token x cached tokens of decodes, in microseconds: the shape
// of a roofline step without its detail.
class LinearTimer final : public StepTimer {
 public:
  double fixed_us = 1000;
  double per_prefill_token_us = 20;
  double per_decode_us = 50;
  double per_context_token_us = 0.01;
  std::vector<StepShape> shapes;  // every step asked for
  bool record = false;

  sim::Time step_time(const StepShape& s) override {
    if (record)
      shapes.push_back(s);
    const double us = fixed_us + per_prefill_token_us * static_cast<double>(s.prefill_tokens) +
                      per_decode_us * s.decode_sequences +
                      per_context_token_us * static_cast<double>(s.decode_context_tokens);
    return sim::Time::ps(static_cast<int64_t>(us * 1e6));
  }
};

struct TestRequest {
  double arrival_s;
  uint32_t prompt;
  uint32_t output;
};

inline config::ArrivalSpec trace_of(const std::vector<TestRequest>& reqs) {
  config::ArrivalSpec spec;
  spec.kind = config::ArrivalKind::kTrace;
  for (const TestRequest& r : reqs)
    spec.trace.push_back(config::TraceRequest{
        sim::Time::ps(static_cast<int64_t>(r.arrival_s * 1e12)), r.prompt, r.output});
  return spec;
}

inline ReplicaSetup replica(StepTimer& timer, config::SchedulerKind kind, uint32_t max_batch,
                            uint32_t max_tokens, uint64_t kv_blocks, uint32_t block_tokens = 16) {
  ReplicaSetup r;
  r.name = "r";
  r.scheduler = kind;
  r.limits = SchedulerLimits{max_batch, max_tokens, 1};
  r.kv_blocks = kv_blocks;
  r.kv_block_tokens = block_tokens;
  r.chips = 1;
  r.timer = &timer;
  return r;
}

}  // namespace podsim::fleet::testing
