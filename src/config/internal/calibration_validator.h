// The rules on calibration knobs, shared by a topology's `calibration` and a
// calibration profile (proto/podsim/calibration.proto), and the rules of a
// profile file as a whole (docs/inputs.md, "Calibration profiles").
//
// Internal to src/config: it reads the generated messages. After
// validate_calibration_profile() returns no issues, to_calibration_spec()
// (topology_converter.h) cannot fail on the profile's knobs.
#pragma once

#include <vector>

#include "config/internal/issue_list.h"

namespace podsim {
class Calibration;
class CalibrationProfile;
}  // namespace podsim

namespace podsim::config::internal {

// Which knobs of a Calibration are set (not at proto3's 0, "ideal"): an
// efficiency when it is valid, a fixed cost whenever it is not 0.
struct KnobsSet {
  bool ici_link_efficiency = false;
  bool dcn_efficiency = false;
  bool collective_overhead_ns = false;
  bool mxu_efficiency = false;
  bool hbm_efficiency = false;
  bool op_overhead_ns = false;
  bool ring_step_overhead_ns = false;
  bool hbm_latency_ns = false;
  bool mxu_tile_overhead_cycles = false;

  bool any() const {
    return ici_link_efficiency || dcn_efficiency || collective_overhead_ns || mxu_efficiency ||
           hbm_efficiency || op_overhead_ns || ring_step_overhead_ns || hbm_latency_ns ||
           mxu_tile_overhead_cycles;
  }
};

// Efficiencies in (0, 1] (0 means unset), fixed costs >= 0 and <= 1e12 ns,
// every value finite; issues under `path` (the Calibration message). Returns
// the knobs that are set (see KnobsSet). O(1).
KnobsSet check_calibration_knobs(const podsim::Calibration& calibration, const FieldPath& path,
                                 IssueList& issues);

// Every rule of a calibration profile: name and chip not empty, the knobs,
// calibration.source always, and a sources.<knob> for every knob set.
std::vector<FieldIssue> validate_calibration_profile(const podsim::CalibrationProfile& profile);

}  // namespace podsim::config::internal
