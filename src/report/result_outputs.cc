#include "report/result_outputs.h"

#include "chip/compute_model.h"
#include "coll/plan.h"
#include "config/compute_ops.h"
#include "report/result_energy.h"

namespace podsim::report {
namespace {

const char* link_kind_name(topo::LinkKind k) {
  switch (k) {
    case topo::LinkKind::kIci:
      return "ici";
    case topo::LinkKind::kDcnUp:
      return "dcn_up";
    case topo::LinkKind::kDcnDown:
      return "dcn_down";
  }
  return "ici";
}

void fill_units(const chip::UnitTimes& u, podsim::UnitTimes& out) {
  out.set_mxu_us(u.mxu.to_us());
  out.set_vector_us(u.vector.to_us());
  out.set_issue_us(u.issue.to_us());
  out.set_dma_wait_us(u.dma_wait.to_us());
  out.set_overhead_us(u.overhead.to_us());
}

void fill_group(const engine::GroupTime& g, podsim::GroupTime& out) {
  out.set_key(g.key);
  out.set_compute_us(g.compute.to_us());
  out.set_memory_us(g.memory.to_us());
  out.set_collective_exposed_us(g.collective_exposed.to_us());
  out.set_collective_overlapped_us(g.collective_overlapped.to_us());
  fill_units(g.units, *out.mutable_units());
}

}  // namespace

void fill_serving_memory(const engine::ServingSummary& s, podsim::ServingResult& out) {
  podsim::Memory& m = *out.mutable_memory();
  m.set_hbm_used_bytes(s.hbm_used_bytes);
  m.set_hbm_capacity_bytes(s.hbm_capacity_bytes);
  m.set_weight_bytes(s.memory.weight_bytes);
  m.set_kv_cache_bytes(s.memory.kv_cache_bytes);
  m.set_activation_peak_bytes(s.memory.activation_peak_bytes);
  m.set_fits(s.fits);
  out.set_prefill_chunks(s.prefill_chunks);
  out.set_prefill_chunk_sequences(s.chunk_sequences);
  out.set_prefill_weight_gathers(s.weight_gathers);
  out.set_attention_layout(s.attention_layout);
  out.set_attention_mapping(s.attention_mapping);
  out.set_collective_matmul(s.collective_matmul);
  out.set_collective_matmul_looped(s.collective_matmul_use.looped);
  out.set_collective_matmul_whole(s.collective_matmul_use.whole);
  std::string reasons;
  for (const std::string& r : s.collective_matmul_use.whole_reasons)
    reasons += (reasons.empty() ? "" : "; ") + r;
  out.set_collective_matmul_whole_reasons(reasons);
  out.mutable_spread();
}

void fill_serving_result(const engine::StepResult& r, const engine::ServingSummary& s,
                         podsim::ServingResult& out) {
  out.set_simulated(true);
  out.set_step_time_us(s.step_time_us);
  out.set_compute_us(s.compute_us);
  out.set_memory_us(s.memory_us);
  out.set_collective_exposed_us(s.collective_exposed_us);
  out.set_idle_us(s.idle_us);
  out.set_collective_overlapped_us(s.collective_overlapped_us);
  fill_units(r.critical.units, *out.mutable_units());
  out.set_tokens(s.tokens);
  out.set_tokens_per_s(s.tokens_per_s);
  out.set_tokens_per_s_per_chip(s.tokens_per_s_per_chip);
  out.set_ttft_us(s.ttft_us);
  out.set_tpot_us(s.tpot_us);
  out.set_mfu(s.mfu);
  out.set_hbm_bandwidth_utilisation(s.hbm_bandwidth_utilisation);
  fill_serving_memory(s, out);
  out.set_critical_chip(r.critical_chip);
  out.set_critical_stage(r.critical_stage);
  podsim::Spread& spread = *out.mutable_spread();
  spread.set_min_chip_end_us(r.min_chip_end.to_us());
  spread.set_mean_chip_end_us(r.mean_chip_end.to_us());
  spread.set_max_chip_end_us(r.step_time.to_us());
  spread.set_simulated_chips(r.simulated_chips);
  spread.set_represented_chips(r.represented_chips);
  out.set_events(r.events);
  out.set_fused_epilogues(r.fused_epilogues);
  fill_energy(s.energy, s.power, r.step_time, s.tokens, *out.mutable_energy());
  out.mutable_cost();
  for (size_t i = 0; i < r.chips.size() && i < r.chip_breakdowns.size(); ++i) {
    const engine::ChipBreakdown& b = r.chip_breakdowns[i];
    podsim::ChipBreakdown& c = *out.add_chips_breakdown();
    c.set_chip(r.chips[i]);
    c.set_stage(r.chip_stage[i]);
    c.set_end_us(b.end.to_us());
    c.set_compute_us(b.compute.to_us());
    c.set_memory_us(b.memory.to_us());
    c.set_collective_exposed_us(b.collective_exposed.to_us());
    c.set_idle_us(b.idle.to_us());
    c.set_collective_overlapped_us(b.collective_overlapped.to_us());
    fill_units(b.units, *c.mutable_units());
    if (i < s.energy.chips.size()) {
      const engine::ChipEnergy& e = s.energy.chips[i];
      fill_energy_classes(e.classes, *c.mutable_energy());
      c.set_energy_j(joules(e.parts.total()));
      c.set_peak_power_w(e.peak_watts);
    }
  }
  for (const auto& g : r.by_layer) {
    fill_group(g, *out.add_by_layer());
  }
  for (const auto& g : r.by_op_class) {
    fill_group(g, *out.add_by_op_class());
  }
}

void fill_op_list_result(const engine::OpListResult& r, podsim::OpListResult& out) {
  out.set_makespan_us(r.makespan.to_us());
  out.set_events(r.events);
  for (const auto& op : r.operations) {
    podsim::OperationResult& o = *out.add_operations();
    o.set_name(op.name);
    o.set_repeat(op.repeat);
    o.set_start_us(op.start.to_us());
    o.set_end_us(op.end.to_us());
    o.set_time_us(op.per_run.to_us());
    podsim::CollectiveFigures& c = *o.mutable_collective();
    podsim::ComputeFigures& k = *o.mutable_compute();
    if (op.compute) {
      const chip::OpTiming& timing = op.compute->timing;
      o.set_kind(std::string(config::kind_name(op.compute->op)));
      o.set_bound(std::string(chip::to_string(timing.bound)));
      o.set_bytes(timing.bytes);
      c.set_group_size(1);
      k.set_flops(timing.flops);
      k.set_hbm_bytes(timing.bytes);
      k.set_achieved_flops_per_s(timing.achieved_flops_per_s);
      continue;
    }
    o.set_kind(coll::to_string(op.kind));
    o.set_bound("network");
    o.set_bytes(op.bytes);
    for (const auto& a : op.axes) {
      c.add_axes(a);
    }
    c.set_group_size(op.group_size);
    c.set_algbw_gbps(op.algbw_gbps);
    c.set_busbw_gbps(op.busbw_gbps);
    c.set_link_util_mean(op.link_util_mean);
    c.set_link_util_max(op.link_util_max);
    c.set_links_used(op.links_used);
    c.set_transfers(op.transfers);
    c.set_schedule(op.schedule);
  }
}

void fill_link_stats(const LinkReport& r, podsim::LinkStats& out) {
  out.set_window_us(r.window.to_us());
  for (const uint32_t s : r.shape) {
    out.add_shape(s);
  }
  out.set_slices(r.slices);
  out.set_chips(r.chips);
  out.set_replicas_unfolded(r.replicas_unfolded);
  for (size_t i = 0; i < r.links.size(); ++i) {
    const topo::Link& l = r.links[i];
    const engine::LinkUsage& u = r.usage[i];
    podsim::Link& link = *out.add_links();
    link.set_link(u.link);
    link.set_src(l.src);
    link.set_dst(l.dst);
    link.set_kind(link_kind_name(l.kind));
    const bool ici = l.kind == topo::LinkKind::kIci;
    link.set_dim(ici ? static_cast<int32_t>(l.dim) : -1);
    link.set_direction(ici ? l.direction : 0);
    link.set_wrap(l.wrap);
    link.set_bytes(u.bytes);
    link.set_busy_us(u.busy.to_us());
    link.set_utilisation(u.utilisation);
    link.set_busy_fraction(u.busy_fraction);
  }
}

void fill_simulation(bool symmetric, const std::string& detail, uint32_t played_chips,
                     podsim::Simulation& out) {
  out.set_method(symmetric ? "symmetric" : "full");
  out.set_detail(detail);
  out.set_played_chips(played_chips);
}

}  // namespace podsim::report
