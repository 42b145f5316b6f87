#include "engine/serving_summary.h"

namespace podsim::engine {

ServingSummary summarize_serving(const StepResult& step, const workload::Program& program,
                                 const config::PodSpec& pod, const config::ScenarioSpec& scenario) {
  ServingSummary s;
  s.step_time_us = step.step_time.to_us();
  s.compute_us = step.critical.compute.to_us();
  s.memory_us = step.critical.memory.to_us();
  s.collective_exposed_us = step.critical.collective_exposed.to_us();
  s.idle_us = step.critical.idle.to_us();
  s.collective_overlapped_us = step.critical.collective_overlapped.to_us();

  const double seconds = step.step_time.to_s();
  const auto chips = static_cast<double>(pod.chip_count());
  s.tokens = program.tokens;
  if (seconds > 0) {
    s.tokens_per_s = static_cast<double>(program.tokens) / seconds;
    s.tokens_per_s_per_chip = s.tokens_per_s / chips;
    s.mfu = program.model_flops / (seconds * chips * pod.chip.peak_bf16_flops);
    s.hbm_bandwidth_utilisation =
        step.hbm_bytes / (seconds * static_cast<double>(pod.chip.hbm_bandwidth.bytes_per_s()));
  }
  (scenario.phase == config::Phase::kPrefill ? s.ttft_us : s.tpot_us) = s.step_time_us;

  s.prefill_chunks = program.prefill_chunks;
  s.chunk_sequences = program.chunk_sequences;
  s.weight_gathers = program.weight_gathers;
  s.heads = program.heads;
  s.kv_heads = program.kv_heads;
  s.attention_layout = program.attention_layout;
  s.collective_matmul = program.collective_matmul.on ? "on" : "off";
  s.collective_matmul_use = program.collective_matmul;
  s.memory = program.memory_per_chip;
  s.hbm_used_bytes = s.memory.total();
  s.hbm_capacity_bytes = pod.chip.hbm_bytes;
  s.fits = s.hbm_used_bytes <= s.hbm_capacity_bytes;
  return s;
}

std::string attention_mapping(const workload::Program& program, const chip::ComputeModel& compute) {
  for (const workload::StageProgram& stage : program.stages) {
    for (const workload::Instruction& ins : stage.instructions) {
      if (const auto* op = std::get_if<chip::Op>(&ins.body)) {
        if (const auto* a = std::get_if<chip::Attention>(op))
          return std::string(compute.attention_mapping(*a));
      }
    }
  }
  return "";
}

}  // namespace podsim::engine
