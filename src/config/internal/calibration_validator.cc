#include "config/internal/calibration_validator.h"

#include <string>

#include "config/internal/topology_validator.h"
#include "podsim/calibration.pb.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {
namespace {

// Below a tenth of a percent an efficiency is a typo, and the rates it
// scales could outlast sim::Time.
constexpr double kMinEfficiency = 1e-3;
constexpr double kMaxTileOverheadCycles = 1e6;

// An efficiency is a fraction in [0.001, 1]; 0 means unset (ideal, 1.0). True
// when it is set to a valid value (an invalid one is reported as such alone).
bool efficiency(IssueList& issues, const FieldPath& path, double value) {
  if (!issues.finite(path, value))
    return false;
  if (value == 0 || (value >= kMinEfficiency && value <= 1))
    return value > 0;
  issues.add(path, "must be in [0.001, 1] (0 means unset), got " + format_number(value));
  return false;
}

// A fixed cost in ns, >= 0 (0: none) and within the simulator's range. True
// when it is not 0, valid or not.
bool fixed_cost(IssueList& issues, const FieldPath& path, double ns) {
  if (issues.non_negative(path, ns))
    issues.at_most(path, ns, kMaxLatencyNs, "ns");
  return ns != 0;
}

// Cycles per round of weight tiles, >= 0 (0: none). A round streams at
// least one row per cycle for at most 2^20 rows in any matmul a workload
// names, so a million cycles is already a typo. True when not 0.
bool cycles(IssueList& issues, const FieldPath& path, double value) {
  if (issues.non_negative(path, value))
    issues.at_most(path, value, kMaxTileOverheadCycles, "cycles");
  return value != 0;
}

}  // namespace

KnobsSet check_calibration_knobs(const Calibration& c, const FieldPath& path, IssueList& issues) {
  KnobsSet set;
  set.ici_link_efficiency =
      efficiency(issues, path("ici_link_efficiency"), c.ici_link_efficiency());
  set.dcn_efficiency = efficiency(issues, path("dcn_efficiency"), c.dcn_efficiency());
  set.collective_overhead_ns =
      fixed_cost(issues, path("collective_overhead_ns"), c.collective_overhead_ns());
  set.mxu_efficiency = efficiency(issues, path("mxu_efficiency"), c.mxu_efficiency());
  set.hbm_efficiency = efficiency(issues, path("hbm_efficiency"), c.hbm_efficiency());
  set.op_overhead_ns = fixed_cost(issues, path("op_overhead_ns"), c.op_overhead_ns());
  set.ring_step_overhead_ns =
      fixed_cost(issues, path("ring_step_overhead_ns"), c.ring_step_overhead_ns());
  set.hbm_latency_ns = fixed_cost(issues, path("hbm_latency_ns"), c.hbm_latency_ns());
  set.mxu_tile_overhead_cycles =
      cycles(issues, path("mxu_tile_overhead_cycles"), c.mxu_tile_overhead_cycles());
  return set;
}

std::vector<FieldIssue> validate_calibration_profile(const CalibrationProfile& p) {
  IssueList issues;
  const FieldPath root;
  if (p.name().empty())
    issues.add(root("name"), "must not be empty");
  if (p.chip().empty()) {
    issues.add(root("chip"),
               "must not be empty: name the chip the profile applies to, as topologies do "
               "(chip.name, e.g. \"TPU v5e\")");
  }
  const FieldPath cal = root("calibration");
  const KnobsSet set = check_calibration_knobs(p.calibration(), cal, issues);
  if (p.calibration().source().empty()) {
    issues.add(cal("source"),
               "required: say where the profile's numbers came from (the documents its knobs "
               "were fitted to)");
  }
  const FieldPath sources = root("sources");
  const CalibrationSources& s = p.sources();
  const auto cited = [&](bool knob_set, const char* knob, const std::string& source) {
    if (knob_set && source.empty()) {
      issues.add(sources(knob), std::string("required because calibration.") + knob +
                                    " is set: cite the microbenchmark it was fitted to "
                                    "(document, section, the published number, the arithmetic)");
    }
  };
  cited(set.ici_link_efficiency, "ici_link_efficiency", s.ici_link_efficiency());
  cited(set.dcn_efficiency, "dcn_efficiency", s.dcn_efficiency());
  cited(set.collective_overhead_ns, "collective_overhead_ns", s.collective_overhead_ns());
  cited(set.mxu_efficiency, "mxu_efficiency", s.mxu_efficiency());
  cited(set.hbm_efficiency, "hbm_efficiency", s.hbm_efficiency());
  cited(set.op_overhead_ns, "op_overhead_ns", s.op_overhead_ns());
  cited(set.ring_step_overhead_ns, "ring_step_overhead_ns", s.ring_step_overhead_ns());
  cited(set.hbm_latency_ns, "hbm_latency_ns", s.hbm_latency_ns());
  cited(set.mxu_tile_overhead_cycles, "mxu_tile_overhead_cycles", s.mxu_tile_overhead_cycles());
  return issues.issues();
}

}  // namespace podsim::config::internal
