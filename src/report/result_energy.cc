#include "report/result_energy.h"

namespace podsim::report {

double joules(engine::Picojoules pj) {
  return static_cast<double>(pj) * 1e-12;
}

void fill_energy_parts(const engine::EnergyParts& p, podsim::EnergyParts& out) {
  out.set_idle_j(joules(p.idle_pj));
  out.set_host_j(joules(p.host_pj));
  out.set_mxu_j(joules(p.mxu_pj));
  out.set_vector_j(joules(p.vector_pj));
  out.set_hbm_j(joules(p.hbm_pj));
  out.set_vmem_j(joules(p.vmem_pj));
  out.set_ici_j(joules(p.ici_pj));
  out.set_dcn_j(joules(p.dcn_pj));
}

void fill_energy_classes(const engine::ClassEnergy& c, podsim::EnergyClasses& out) {
  out.set_compute_j(joules(c.compute_pj));
  out.set_memory_j(joules(c.memory_pj));
  out.set_collective_j(joules(c.collective_pj));
  out.set_idle_j(joules(c.idle_pj));
  out.set_host_j(joules(c.host_pj));
}

void fill_energy(const engine::StepEnergy& e, const config::PowerSpec& power, sim::Time step_time,
                 uint64_t tokens, podsim::Energy& out) {
  out.set_modelled(e.modelled);
  out.set_unmodelled_reason(e.unmodelled_reason);
  out.set_clock_factor(power.clock_factor);
  out.set_voltage(power.voltage);
  fill_energy_parts(e.parts, *out.mutable_parts());
  fill_energy_classes(e.classes, *out.mutable_classes());
  fill_energy_classes(e.critical.classes, *out.mutable_critical_chip());
  if (!e.modelled) {
    return;
  }
  const engine::Picojoules total = e.parts.total();
  const double j = joules(total);
  out.set_step_j(j);
  out.set_powered_chips(e.powered_chips);
  out.set_critical_chip_j(joules(e.critical.parts.total()));
  out.set_peak_power_w(e.peak_watts);
  if (step_time.count_ps() > 0) {
    // Picojoules per picosecond: watts.
    out.set_mean_power_w(static_cast<double>(total) / static_cast<double>(step_time.count_ps()));
  }
  if (tokens > 0 && total > 0) {
    out.set_j_per_token(j / static_cast<double>(tokens));
    out.set_tokens_per_j(static_cast<double>(tokens) / j);
  }
}

void fill_power_inputs(const config::PowerSpec& p, podsim::PowerInputs& out) {
  out.set_modelled(p.modelled);
  out.set_idle_watts(p.idle_watts);
  out.set_host_watts(p.host_watts);
  out.set_mxu_bf16_pj_per_flop(p.mxu_bf16_pj_per_flop);
  out.set_mxu_int8_pj_per_op(p.mxu_int8_pj_per_op);
  out.set_mxu_fp8_pj_per_flop(p.mxu_fp8_pj_per_flop);
  out.set_vector_pj_per_flop(p.vector_pj_per_flop);
  out.set_hbm_pj_per_byte(p.hbm_pj_per_byte);
  out.set_vmem_pj_per_byte(p.vmem_pj_per_byte);
  out.set_ici_pj_per_byte_per_hop(p.ici_pj_per_byte_per_hop);
  out.set_dcn_pj_per_byte(p.dcn_pj_per_byte);
  out.set_tdp_watts(p.tdp_watts);
  out.set_clock_factor(p.clock_factor);
  out.set_voltage(p.voltage);
  out.set_source(p.source);
}

}  // namespace podsim::report
