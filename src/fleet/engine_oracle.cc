#include "fleet/engine_oracle.h"

#include <algorithm>
#include <cmath>

#include "engine/workload_mesh.h"
#include "study/evaluate.h"
#include "workload/program.h"

namespace podsim::fleet {
namespace {

// The reference step for the KV cache's bytes per token: kKvProbeContext
// cached tokens per sequence (plus the new one).
constexpr uint32_t kKvProbeContext = 1023;

std::string describe(const config::ScenarioSpec& s) {
  return std::string(s.phase == config::Phase::kPrefill ? "prefill" : "decode") + " batch " +
         std::to_string(s.batch) + ", prompt_len " + std::to_string(s.prompt_len) +
         ", context_len " + std::to_string(s.context_len);
}

}  // namespace

EngineReplica::EngineReplica(const config::ServeReplicaSpec& spec, net::Model network,
                             const sim::WorkLimits& limits)
    : spec_(spec),
      network_(network),
      limits_(limits),
      pod_(std::make_shared<const topo::Pod>(spec.pod)) {
  const config::ServingSpec& serving = *spec.workload.serving;
  const topo::DeviceMesh mesh = engine::workload_mesh(*pod_, spec.workload);
  const workload::MeshAxes axes = engine::mesh_axes(mesh);
  const uint64_t replicas = axes.product(serving.sharding.data_axes);
  const uint64_t micro = std::max<uint32_t>(1, serving.scenario.micro_batches);
  quantum_ = static_cast<uint32_t>(std::min<uint64_t>(replicas * micro, UINT32_MAX));
}

StepCost EngineReplica::cost(const config::ScenarioSpec& scenario) const {
  config::WorkloadSpec w = spec_.workload;
  config::ScenarioSpec& s = w.serving->scenario;
  const uint32_t micro = s.micro_batches;
  s = scenario;
  s.micro_batches = micro;
  s.prefill_chunks = 0;
  study::RunOptions options;
  options.network.model = network_;
  options.allow_oom = true;
  options.limits = limits_;
  const study::Evaluation ev = study::evaluate_in_detail(*pod_, w, options);
  if (ev.result.status() != podsim::Result::ok || !ev.serving)
    throw StepError(spec_.workload.source_file + ": replica '" + spec_.name + "': the step " +
                    describe(s) + " cannot be simulated: " + ev.result.reason());
  const engine::StepEnergy& e = ev.serving->summary.energy;
  return StepCost(ev.serving->step.step_time, ev.serving->summary.mfu,
                  e.modelled ? static_cast<double>(e.parts.total()) * 1e-12 : 0.0, e.modelled);
}

StepOracle EngineReplica::oracle() const {
  return [this](const config::ScenarioSpec& s) { return cost(s); };
}

EngineReplica::KvCapacity EngineReplica::kv_capacity() const {
  const topo::DeviceMesh mesh = engine::workload_mesh(*pod_, spec_.workload);
  const workload::MeshAxes axes = engine::mesh_axes(mesh);
  config::ServingSpec decode = *spec_.workload.serving;
  decode.scenario.phase = config::Phase::kDecode;
  decode.scenario.batch =
      static_cast<uint32_t>((spec_.max_batch + quantum_ - 1) / quantum_ * uint64_t{quantum_});
  decode.scenario.prompt_len = 0;
  decode.scenario.context_len = kKvProbeContext;
  decode.scenario.prefill_chunks = 0;
  decode.scenario.output_len = 0;  // one step, whatever the workload file's scenario
  config::ServingSpec prefill = decode;
  prefill.scenario.phase = config::Phase::kPrefill;
  prefill.scenario.batch = quantum_;
  prefill.scenario.prompt_len = std::max<uint32_t>(1, spec_.max_tokens_per_step / quantum_);
  prefill.scenario.context_len = 0;
  KvCapacity c;
  try {
    const workload::Program d = workload::lower(decode, axes);
    const workload::Program p = workload::lower(prefill, axes);
    c.hbm_bytes = spec_.pod.chip.hbm_bytes;
    c.weight_bytes = d.memory_per_chip.weight_bytes;
    c.activation_bytes =
        std::max(d.memory_per_chip.activation_peak_bytes, p.memory_per_chip.activation_peak_bytes);
    const double tokens = static_cast<double>(decode.scenario.batch) * (kKvProbeContext + 1);
    c.kv_bytes_per_token = static_cast<double>(d.memory_per_chip.kv_cache_bytes) / tokens;
  } catch (const std::exception& e) {
    throw StepError(spec_.workload.source_file + ": replica '" + spec_.name +
                    "': cannot lower its steps: " + e.what());
  }
  const double free_bytes = (static_cast<double>(c.hbm_bytes) -
                             static_cast<double>(c.weight_bytes + c.activation_bytes)) *
                            spec_.kv_memory_fraction;
  if (free_bytes <= 0 || c.kv_bytes_per_token <= 0)
    throw StepError(spec_.workload.source_file + ": replica '" + spec_.name +
                    "': no HBM is left for the KV cache (" + std::to_string(c.hbm_bytes) +
                    " bytes per chip, weights " + std::to_string(c.weight_bytes) +
                    ", activations " + std::to_string(c.activation_bytes) + ")");
  c.tokens = static_cast<uint64_t>(std::floor(free_bytes / c.kv_bytes_per_token));
  c.blocks = c.tokens / spec_.kv_block_tokens;
  if (c.blocks == 0)
    throw StepError(spec_.workload.source_file + ": replica '" + spec_.name +
                    "': the KV cache holds less than one block of " +
                    std::to_string(spec_.kv_block_tokens) + " tokens");
  return c;
}

}  // namespace podsim::fleet
