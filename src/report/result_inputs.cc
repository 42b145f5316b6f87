#include "report/result_inputs.h"

#include "report/result_energy.h"

namespace podsim::report {
namespace {

double ns(sim::Time t) {
  return t.to_us() * 1e3;
}

template <typename Strings, typename Repeated>
void copy_strings(const Strings& from, Repeated* to) {
  for (const auto& s : from) {
    to->Add(std::string(s));
  }
}

uint32_t axis_size(const config::MeshAxisDecl& axis, const config::PodSpec& pod) {
  uint32_t size = 1;
  for (const uint32_t d : axis.dims) {
    size *= d == config::kSliceDimIndex ? pod.slices : pod.torus.dims.at(d).size;
  }
  return size;
}

}  // namespace

std::string_view podsim_version() {
  return PODSIM_VERSION;
}

std::string_view dtype_name(config::DType t) {
  switch (t) {
    case config::DType::kBf16:
      return "bf16";
    case config::DType::kFp32:
      return "fp32";
    case config::DType::kFp8:
      return "fp8";
    case config::DType::kInt8:
      return "int8";
    case config::DType::kInt4:
      return "int4";
  }
  return "bf16";
}

std::string_view phase_name(config::Phase p) {
  return p == config::Phase::kPrefill ? "prefill" : "decode";
}

std::string_view scenario_phase_name(const config::ScenarioSpec& s) {
  return s.is_generation() ? "generation" : phase_name(s.phase);
}

podsim::Result new_result() {
  podsim::Result r;
  r.set_schema_version(kResultSchemaVersion);
  r.set_podsim_version(std::string(podsim_version()));
  r.set_status(podsim::Result::ok);
  podsim::Inputs& in = *r.mutable_inputs();
  podsim::TopologyInputs& t = *in.mutable_topology();
  t.mutable_chip();
  t.mutable_calibration();
  t.mutable_dcn();
  in.mutable_workload();
  in.mutable_run();
  return r;
}

void fill_topology_inputs(const config::PodSpec& pod, podsim::TopologyInputs& out) {
  out.set_name(pod.name);
  out.set_file(pod.source_file);
  out.set_sha256(pod.source_sha256);
  copy_strings(pod.overrides, out.mutable_overrides());
  out.set_chips(static_cast<uint32_t>(pod.chip_count()));
  out.set_slices(pod.slices);
  for (const auto& d : pod.torus.dims) {
    podsim::DimensionInputs& dim = *out.add_dims();
    dim.set_name(d.name);
    dim.set_size(d.size);
    dim.set_wraparound(d.wraparound);
    dim.set_link_bandwidth_gbps(d.link_bandwidth.gbps());
    dim.set_hop_latency_ns(ns(d.hop_latency));
  }
  for (const auto& tw : pod.torus.twists) {
    podsim::TwistInputs& t = *out.add_twists();
    t.set_dim(tw.dim);
    t.set_shift_dim(tw.shift_dim);
    t.set_offset(tw.offset);
  }
  out.set_failed_links(static_cast<uint32_t>(pod.failed_links.size()));
  out.set_dead_chips(static_cast<uint32_t>(pod.dead_chips.size()));
  out.set_degraded_links(static_cast<uint32_t>(pod.degraded_links.size()));
  out.set_stragglers(static_cast<uint32_t>(pod.stragglers.size()));
  const config::ChipSpec& c = pod.chip;
  podsim::ChipInputs& chip = *out.mutable_chip();
  chip.set_name(c.name);
  chip.set_ici_ports(c.ici_ports);
  chip.set_hbm_bytes(c.hbm_bytes);
  chip.set_hbm_bandwidth_gbps(c.hbm_bandwidth.gbps());
  chip.set_peak_bf16_flops(c.peak_bf16_flops);
  chip.set_peak_int8_ops(c.peak_int8_ops);
  chip.set_peak_fp8_flops(c.peak_fp8_flops);
  chip.set_mxu_count(c.mxu_count);
  chip.set_mxu_rows(c.mxu_rows);
  chip.set_mxu_columns(c.mxu_columns);
  chip.set_mxu_clock_hz(c.mxu_clock_hz);
  chip.set_vmem_bytes(c.vmem_bytes);
  chip.set_mxu_weight_load_bytes_per_cycle(config::weight_load_bytes_per_cycle(c));
  const config::TensorCoreSpec& tc = c.tensor_core;
  chip.set_tensor_cores(tc.cores);
  chip.set_vector_lanes(tc.vector_lanes);
  chip.set_vector_sublanes(tc.vector_sublanes);
  chip.set_vector_alus(tc.vector_alus);
  chip.set_transcendentals_per_cycle(tc.transcendentals_per_cycle);
  chip.set_dma_bandwidth_gbps(
      (tc.dma_bandwidth.bytes_per_s() > 0 ? tc.dma_bandwidth : c.hbm_bandwidth).gbps());
  chip.set_dma_latency_ns(ns(tc.dma_latency));
  chip.set_dma_granule_bytes(tc.dma_granule_bytes);
  chip.set_step_issue_cycles(tc.step_issue_cycles);
  fill_power_inputs(pod.chip.power, *chip.mutable_power());
  const config::CalibrationSpec& k = pod.calibration;
  podsim::CalibrationInputs& cal = *out.mutable_calibration();
  cal.set_ici_link_efficiency(k.ici_link_efficiency);
  cal.set_dcn_efficiency(k.dcn_efficiency);
  cal.set_collective_overhead_ns(ns(k.collective_overhead));
  cal.set_mxu_efficiency(k.mxu_efficiency);
  cal.set_hbm_efficiency(k.hbm_efficiency);
  cal.set_op_overhead_ns(ns(k.op_overhead));
  cal.set_ring_step_overhead_ns(ns(k.ring_step_overhead));
  cal.set_hbm_latency_ns(ns(k.hbm_latency));
  cal.set_mxu_tile_overhead_cycles(k.mxu_tile_overhead_cycles);
  cal.set_source(k.source);
  cal.set_profile(k.profile);
  cal.set_profile_file(k.profile_file);
  cal.set_profile_sha256(k.profile_sha256);
  cal.set_replaced_topology_calibration(k.replaced_topology_calibration);
  podsim::DcnInputs& dcn = *out.mutable_dcn();
  if (pod.dcn) {
    dcn.set_bandwidth_per_chip_gbps(pod.dcn->bandwidth_per_chip.gbps());
    dcn.set_latency_ns(ns(pod.dcn->latency));
  }
}

void fill_serving_inputs(const config::ServingSpec& serving, podsim::ServingInputs& out) {
  const config::ModelSpec& m = serving.model;
  podsim::ModelInputs& model = *out.mutable_model();
  model.set_name(m.name);
  model.set_layers(m.layers);
  model.set_d_model(m.d_model);
  model.set_heads(m.heads);
  model.set_kv_heads(m.kv_heads);
  model.set_head_dim(m.head_dim);
  model.set_ffn_dim(m.ffn_dim);
  model.set_gated_ffn(m.gated_ffn);
  model.set_vocab(m.vocab);
  model.set_tied_embeddings(m.tied_embeddings);
  model.set_parallel_block(m.parallel_block);
  model.set_max_context_len(m.max_context_len);
  podsim::MoeInputs& moe = *model.mutable_moe();
  if (m.moe) {
    moe.set_experts(m.moe->experts);
    moe.set_experts_per_token(m.moe->experts_per_token);
    moe.set_shared_experts(m.moe->shared_experts);
    moe.set_expert_ffn_dim(m.moe->expert_ffn_dim);
    moe.set_first_dense_layers(m.moe->first_dense_layers);
    moe.set_moe_layer_interval(m.moe->moe_layer_interval);
  }
  podsim::MlaInputs& mla = *model.mutable_mla();
  if (m.mla) {
    mla.set_kv_lora_rank(m.mla->kv_rank);
    mla.set_q_lora_rank(m.mla->q_rank);
    mla.set_qk_nope_head_dim(m.mla->nope_dim);
    mla.set_qk_rope_head_dim(m.mla->rope_dim);
    mla.set_v_head_dim(m.mla->v_dim);
  }
  model.set_weight_dtype(std::string(dtype_name(m.weight_dtype)));
  model.set_activation_dtype(std::string(dtype_name(m.activation_dtype)));
  model.set_kv_dtype(std::string(dtype_name(m.kv_dtype)));
  const config::ScenarioSpec& s = serving.scenario;
  podsim::ScenarioInputs& sc = *out.mutable_scenario();
  sc.set_phase(std::string(scenario_phase_name(s)));
  sc.set_batch(s.batch);
  sc.set_prompt_len(s.prompt_len);
  sc.set_context_len(s.context_len);
  sc.set_micro_batches(s.micro_batches);
  sc.set_prefill_chunks(s.prefill_chunks);
  sc.set_output_len(s.output_len);
  const config::ShardingSpec& h = serving.sharding;
  podsim::ShardingInputs& sh = *out.mutable_sharding();
  copy_strings(h.tensor_axes, sh.mutable_tensor_axes());
  sh.set_tensor_collective(h.tensor_collective == config::TensorCollective::kAllReduce
                               ? "all-reduce"
                               : "reduce-scatter+all-gather");
  sh.set_weight_gathered(h.weight_gathered);
  sh.set_kv_layout(h.kv_layout == config::KvLayout::kByBatch ? "by-batch" : "by-heads");
  copy_strings(h.expert_axes, sh.mutable_expert_axes());
  copy_strings(h.data_axes, sh.mutable_data_axes());
  sh.set_pipeline_axis(h.pipeline_axis);
  sh.set_overlap_collectives(h.overlap_collectives);
  sh.set_pad_heads(h.pad_heads);
  copy_strings(h.weight_gathered_axes, sh.mutable_weight_gathered_axes());
  sh.set_collective_matmul(h.collective_matmul == config::CollectiveMatmul::kOn     ? "on"
                           : h.collective_matmul == config::CollectiveMatmul::kAuto ? "auto"
                                                                                    : "off");
  sh.set_attention_mapping(std::string(config::to_string(h.attention_mapping)));
}

void fill_workload_inputs(const config::WorkloadSpec& workload, const config::PodSpec& pod,
                          podsim::Inputs& out) {
  podsim::WorkloadInputs& w = *out.mutable_workload();
  w.set_name(workload.name);
  w.set_file(workload.source_file);
  w.set_sha256(workload.source_sha256);
  copy_strings(workload.overrides, w.mutable_overrides());
  w.set_form(workload.serving ? "serving" : "op_list");
  for (const auto& a : workload.mesh) {
    podsim::MeshAxisInputs& axis = *w.add_mesh();
    axis.set_name(a.name);
    axis.set_size(axis_size(a, pod));
  }
  w.set_operations(static_cast<uint32_t>(workload.operations.size()));
  if (workload.serving) {
    fill_serving_inputs(*workload.serving, *out.mutable_serving());
  }
}

}  // namespace podsim::report
