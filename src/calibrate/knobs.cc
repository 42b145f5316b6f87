#include "calibrate/knobs.h"

#include <cmath>

namespace podsim::calibrate {

std::string_view knob_name(Knob knob) {
  switch (knob) {
    case Knob::kIciLinkEfficiency:
      return "ici_link_efficiency";
    case Knob::kMxuEfficiency:
      return "mxu_efficiency";
    case Knob::kHbmEfficiency:
      return "hbm_efficiency";
    case Knob::kCollectiveOverhead:
      return "collective_overhead_ns";
    case Knob::kHbmLatency:
      return "hbm_latency_ns";
    case Knob::kMxuTileOverhead:
      return "mxu_tile_overhead_cycles";
    case Knob::kRingStepOverhead:
      return "ring_step_overhead_ns";
    case Knob::kOpOverhead:
      return "op_overhead_ns";
  }
  return "?";
}

std::optional<Knob> parse_knob(std::string_view name) {
  for (const Knob k : kAllKnobs) {
    if (knob_name(k) == name)
      return k;
  }
  return std::nullopt;
}

namespace {

bool is_efficiency(Knob knob) {
  return knob == Knob::kIciLinkEfficiency || knob == Knob::kMxuEfficiency ||
         knob == Knob::kHbmEfficiency;
}

}  // namespace

std::string_view knob_unit(Knob knob) {
  if (is_efficiency(knob))
    return "";
  return knob == Knob::kMxuTileOverhead ? "cycles" : "ns";
}

bool moves(Knob knob, RowKind kind) {
  switch (knob) {
    case Knob::kIciLinkEfficiency:
    case Knob::kCollectiveOverhead:
    case Knob::kRingStepOverhead:
      return kind == RowKind::kCollective;
    case Knob::kMxuEfficiency:
    case Knob::kMxuTileOverhead:
      return kind == RowKind::kMatmul;
    case Knob::kHbmEfficiency:
    case Knob::kHbmLatency:
    case Knob::kOpOverhead:
      return kind == RowKind::kMatmul || kind == RowKind::kHbmCopy;
  }
  return false;
}

double knob_value(const config::CalibrationSpec& c, Knob knob) {
  switch (knob) {
    case Knob::kIciLinkEfficiency:
      return c.ici_link_efficiency;
    case Knob::kMxuEfficiency:
      return c.mxu_efficiency;
    case Knob::kHbmEfficiency:
      return c.hbm_efficiency;
    case Knob::kCollectiveOverhead:
      return c.collective_overhead.to_ns();
    case Knob::kHbmLatency:
      return c.hbm_latency.to_ns();
    case Knob::kMxuTileOverhead:
      return c.mxu_tile_overhead_cycles;
    case Knob::kRingStepOverhead:
      return c.ring_step_overhead.to_ns();
    case Knob::kOpOverhead:
      return c.op_overhead.to_ns();
  }
  return 0;
}

void set_knob(config::CalibrationSpec& c, Knob knob, double value) {
  switch (knob) {
    case Knob::kIciLinkEfficiency:
      c.ici_link_efficiency = value;
      return;
    case Knob::kMxuEfficiency:
      c.mxu_efficiency = value;
      return;
    case Knob::kHbmEfficiency:
      c.hbm_efficiency = value;
      return;
    case Knob::kCollectiveOverhead:
      c.collective_overhead = sim::Time::from_ns_rounded(value);
      return;
    case Knob::kHbmLatency:
      c.hbm_latency = sim::Time::from_ns_rounded(value);
      return;
    case Knob::kMxuTileOverhead:
      c.mxu_tile_overhead_cycles = value;
      return;
    case Knob::kRingStepOverhead:
      c.ring_step_overhead = sim::Time::from_ns_rounded(value);
      return;
    case Knob::kOpOverhead:
      c.op_overhead = sim::Time::from_ns_rounded(value);
      return;
  }
}

double to_parameter(Knob knob, double value) {
  return is_efficiency(knob) ? 1.0 / value : value;
}

double from_parameter(Knob knob, double parameter) {
  return is_efficiency(knob) ? 1.0 / parameter : parameter;
}

double parameter_floor(Knob knob) {
  return is_efficiency(knob) ? 1.0 : 0.0;
}

double parameter_ceiling(Knob knob) {
  if (is_efficiency(knob))
    return 1000.0;                                    // an efficiency of 0.001, the loader's floor
  return knob == Knob::kMxuTileOverhead ? 1e6 : 1e9;  // 1e6 cycles; 1 s
}

double parameter_step(Knob knob) {
  if (is_efficiency(knob))
    return 1e-3;
  return knob == Knob::kMxuTileOverhead ? 1.0 : 10.0;  // cycles; ns
}

}  // namespace podsim::calibrate
