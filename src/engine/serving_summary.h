// The serving figures of one simulated step, computed from the engine's
// result, the lowered program and the pod: what `podsim run` reports for a
// serving workload (docs/outputs.md lists every figure with its definition).
#pragma once

#include <cstdint>
#include <string>

#include "chip/compute_model.h"
#include "config/serving_spec.h"
#include "config/topology_spec.h"
#include "engine/energy.h"
#include "engine/step.h"
#include "workload/program.h"

namespace podsim::engine {

struct ServingSummary {
  double step_time_us = 0;
  // The critical chip's breakdown; the first four add up to step_time_us.
  double compute_us = 0;
  double memory_us = 0;
  double collective_exposed_us = 0;
  double idle_us = 0;
  double collective_overlapped_us = 0;

  uint64_t tokens = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_chip = 0;
  double ttft_us = 0;  // prefill: the step time; 0 for decode
  double tpot_us = 0;  // decode: the step time; 0 for prefill
  // Useful model FLOPs over (step time x chips x bf16 peak).
  double mfu = 0;
  // HBM bytes the critical chip's compute moved over (step time x HBM bandwidth).
  double hbm_bandwidth_utilisation = 0;

  uint32_t prefill_chunks = 1;   // sequential chunks the batch ran in
  uint64_t chunk_sequences = 0;  // sequences per replica in one chunk
  uint32_t weight_gathers = 0;   // each layer's weight gathers (workload::Program)
  // Attention heads computed (padded with sharding.pad_heads; the model's
  // own otherwise).
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  std::string attention_layout;   // workload::Program::attention_layout
  std::string attention_mapping;  // attention_mapping() below
  // "off" or "on" as lowered (study/ prefixes "auto: " when it chose), and
  // workload::Program::collective_matmul.
  std::string collective_matmul;
  workload::CollectiveMatmulUse collective_matmul_use;

  workload::MemoryFootprint memory;  // per chip
  uint64_t hbm_used_bytes = 0;
  uint64_t hbm_capacity_bytes = 0;
  bool fits = true;

  // What the step drew (engine/energy.h): set by the caller, which has the
  // pod, with step_energy(); not modelled until then.
  StepEnergy energy;
  config::PowerSpec power;  // the model it was priced with
};

ServingSummary summarize_serving(const StepResult& step, const workload::Program& program,
                                 const config::PodSpec& pod, const config::ScenarioSpec& scenario);

// How `compute` runs the program's first attention kernel
// (ComputeModel::attention_mapping); "" without attention or a choice.
std::string attention_mapping(const workload::Program& program, const chip::ComputeModel& compute);

}  // namespace podsim::engine
