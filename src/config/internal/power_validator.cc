#include "config/internal/power_validator.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "config/dvfs.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {
namespace {

constexpr double kMinClockFactor = 0.1;
constexpr double kMaxClockFactor = 1.5;
constexpr double kMaxWatts = 1e5;       // far above any chip or host
constexpr double kMaxPicojoules = 1e6;  // 1 uJ per operation or byte
constexpr double kMaxThresholdVoltage = 0.9;

VoltageLaw law_of(const Power& p) {
  VoltageLaw law;
  if (p.has_threshold_voltage())
    law.threshold_voltage = p.threshold_voltage();
  if (p.has_alpha())
    law.alpha = p.alpha();
  if (p.has_min_voltage())
    law.min_voltage = p.min_voltage();
  return law;
}

bool any_figure(const Power& p) {
  return p.idle_watts() != 0 || p.host_watts() != 0 || p.mxu_bf16_pj_per_flop() != 0 ||
         p.mxu_int8_pj_per_op() != 0 || p.mxu_fp8_pj_per_flop() != 0 ||
         p.vector_pj_per_flop() != 0 || p.hbm_pj_per_byte() != 0 || p.vmem_pj_per_byte() != 0 ||
         p.ici_pj_per_byte_per_hop() != 0 || p.dcn_pj_per_byte() != 0 || p.tdp_watts() != 0;
}

// The nominal peak (ops/s) of a dtype: the given figure, else the matrix
// units' rate at `macs_per_cycle` (the loader's own derivation).
double nominal_peak(double given_tera, const MatrixUnits& m, uint32_t macs_per_cycle) {
  if (given_tera > 0)
    return given_tera * 1e12;
  return 2.0 * m.count() * m.rows() * m.columns() * m.clock_ghz() * 1e9 * macs_per_cycle;
}

// The chip's power with every unit at its peak at once, in watts (nominal
// clock): idle, the matrix units at the dtype that draws most, HBM
// streaming at its bandwidth, every ICI port sending at its link's rate.
double peak_watts(const Topology& t) {
  const Chip& c = t.chip();
  const Power& p = c.power();
  const MatrixUnits& m = c.matrix_units();
  const double mxu = std::max(
      {p.mxu_bf16_pj_per_flop() * nominal_peak(c.peak().bf16_tflops(), m, 1),
       p.mxu_int8_pj_per_op() * nominal_peak(c.peak().int8_tops(), m, m.int8_macs_per_cycle()),
       p.mxu_fp8_pj_per_flop() * nominal_peak(c.peak().fp8_tflops(), m, m.fp8_macs_per_cycle())});
  double link_gbps = 0;
  for (const Dimension& d : t.torus().dims())
    link_gbps = std::max(link_gbps, d.link_bandwidth_gbps());
  const double ici = p.ici_pj_per_byte_per_hop() * c.ici_ports() * link_gbps * 1e9;
  const double hbm = p.hbm_pj_per_byte() * c.hbm_bandwidth_gbps() * 1e9;
  return p.idle_watts() + (mxu + ici + hbm) * 1e-12;
}

}  // namespace

void check_power(IssueList& issues, const FieldPath& at, const Topology& t) {
  const Power& p = t.chip().power();
  bool figures = true;
  const auto watts = [&](const char* name, double v) {
    figures &= issues.non_negative(at(name), v) && issues.at_most(at(name), v, kMaxWatts, "W");
  };
  const auto pj = [&](const char* name, double v) {
    figures &=
        issues.non_negative(at(name), v) && issues.at_most(at(name), v, kMaxPicojoules, "pJ");
  };
  watts("idle_watts", p.idle_watts());
  watts("host_watts", p.host_watts());
  pj("mxu_bf16_pj_per_flop", p.mxu_bf16_pj_per_flop());
  pj("mxu_int8_pj_per_op", p.mxu_int8_pj_per_op());
  pj("mxu_fp8_pj_per_flop", p.mxu_fp8_pj_per_flop());
  pj("vector_pj_per_flop", p.vector_pj_per_flop());
  pj("hbm_pj_per_byte", p.hbm_pj_per_byte());
  pj("vmem_pj_per_byte", p.vmem_pj_per_byte());
  pj("ici_pj_per_byte_per_hop", p.ici_pj_per_byte_per_hop());
  pj("dcn_pj_per_byte", p.dcn_pj_per_byte());
  watts("tdp_watts", p.tdp_watts());

  bool law = true;
  if (p.has_clock_factor() &&
      (!issues.finite(at("clock_factor"), p.clock_factor()) || p.clock_factor() < kMinClockFactor ||
       p.clock_factor() > kMaxClockFactor)) {
    if (std::isfinite(p.clock_factor()))
      issues.add(at("clock_factor"),
                 "must be in [0.1, 1.5] (a fraction of the nominal clock), got " +
                     format_number(p.clock_factor()));
    law = false;
  }
  if (p.has_threshold_voltage() &&
      (!issues.finite(at("threshold_voltage"), p.threshold_voltage()) ||
       p.threshold_voltage() < 0 || p.threshold_voltage() >= kMaxThresholdVoltage)) {
    if (std::isfinite(p.threshold_voltage()))
      issues.add(at("threshold_voltage"),
                 "must be in [0, 0.9) (a fraction of the nominal voltage), got " +
                     format_number(p.threshold_voltage()));
    law = false;
  }
  if (p.has_alpha() && (!issues.finite(at("alpha"), p.alpha()) || p.alpha() < 1 || p.alpha() > 2)) {
    if (std::isfinite(p.alpha()))
      issues.add(at("alpha"), "must be in [1, 2] (the alpha-power law's index), got " +
                                  format_number(p.alpha()));
    law = false;
  }
  if (p.has_min_voltage() && !issues.finite(at("min_voltage"), p.min_voltage()))
    law = false;
  if (law) {
    const VoltageLaw l = law_of(p);
    if (l.min_voltage <= l.threshold_voltage || l.min_voltage > 1)
      issues.add(at("min_voltage"), "must be in (threshold_voltage, 1] = (" +
                                        format_number(l.threshold_voltage) + ", 1], got " +
                                        format_number(l.min_voltage));
  }
  if (any_figure(p) && p.source().empty())
    issues.add(at("source"), "must cite where the power figures came from (docs/energy.md)");
  if (figures && p.tdp_watts() > 0) {
    const double peak = peak_watts(t);
    if (peak > p.tdp_watts())
      issues.add(at("tdp_watts"),
                 "the power model at every unit's peak at once draws " + format_number(peak) +
                     " W (idle, matrix units, HBM, every ICI port), over the chip's " +
                     format_number(p.tdp_watts()) +
                     " W maximum; lower the energies or the idle power");
  }
}

PowerSpec to_power_spec(const Topology& t) {
  const Power& p = t.chip().power();
  PowerSpec s;
  s.modelled = any_figure(p);
  const VoltageLaw law = law_of(p);
  s.threshold_voltage = law.threshold_voltage;
  s.alpha = law.alpha;
  s.min_voltage = law.min_voltage;
  s.clock_factor = p.has_clock_factor() ? p.clock_factor() : 1.0;
  s.voltage = voltage_for_clock(s.clock_factor, law);
  const double v2 = s.voltage * s.voltage;
  s.idle_watts = p.idle_watts() * s.voltage;
  s.host_watts = p.host_watts();
  s.mxu_bf16_pj_per_flop = p.mxu_bf16_pj_per_flop() * v2;
  s.mxu_int8_pj_per_op = p.mxu_int8_pj_per_op() * v2;
  s.mxu_fp8_pj_per_flop = p.mxu_fp8_pj_per_flop() * v2;
  s.vector_pj_per_flop = p.vector_pj_per_flop() * v2;
  s.vmem_pj_per_byte = p.vmem_pj_per_byte() * v2;
  s.hbm_pj_per_byte = p.hbm_pj_per_byte();
  s.ici_pj_per_byte_per_hop = p.ici_pj_per_byte_per_hop();
  s.dcn_pj_per_byte = p.dcn_pj_per_byte();
  s.tdp_watts = p.tdp_watts();
  s.source = p.source();
  return s;
}

}  // namespace podsim::config::internal
