// A validated calibration profile (proto/podsim/calibration.proto): the
// knobs of one chip's losses against its published hardware, with their
// citations, as config/calibration_loader.h loads them.
#pragma once

#include <string>

#include "config/topology_spec.h"

namespace podsim::config {

// Per-knob citations, as the profile wrote them ("" where it gave none).
struct CalibrationSourcesSpec {
  std::string ici_link_efficiency;
  std::string dcn_efficiency;
  std::string collective_overhead_ns;
  std::string mxu_efficiency;
  std::string hbm_efficiency;
  std::string op_overhead_ns;
  std::string ring_step_overhead_ns;
  std::string hbm_latency_ns;
  std::string mxu_tile_overhead_cycles;

  friend bool operator==(const CalibrationSourcesSpec&, const CalibrationSourcesSpec&) = default;
};

struct CalibrationProfileSpec {
  std::string name;
  std::string description;
  std::string source_file;    // as the user named it
  std::string source_sha256;  // hex SHA-256 of the file's bytes
  std::string chip;           // the chip name it applies to (ChipSpec::name)
  // Where the file wrote `chip` (text input; 0 when unknown), so that a
  // mismatch found when the profile is applied points at it.
  int chip_line = 0;
  int chip_column = 0;
  // The knobs, unset ones ideal; source is the profile's references, and
  // profile / profile_file / profile_sha256 name this profile.
  CalibrationSpec calibration;
  CalibrationSourcesSpec sources;

  friend bool operator==(const CalibrationProfileSpec&, const CalibrationProfileSpec&) = default;
};

}  // namespace podsim::config
