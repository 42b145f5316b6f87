// Converts a validated podsim::Topology message into the typed PodSpec.
//
// Internal to src/config. Precondition: validate_topology() found no issues;
// then every conversion is in range and nothing here throws for bad input.
#pragma once

#include <string>

#include "config/topology_spec.h"

namespace podsim {
class Calibration;
class Topology;
}  // namespace podsim

namespace podsim::config::internal {

// Units: GB/s -> sim::Bandwidth, ns -> sim::Time (rounded to the nearest ps),
// TFLOP/s -> FLOP/s, GHz -> Hz. Defaults are resolved: slices 0 -> 1, unnamed
// dimensions get x, y, z, w, d4, ..., unset calibration efficiencies become 1.0.
PodSpec to_pod_spec(const podsim::Topology& topology, std::string source_file);

// The knobs alone (a topology's calibration, or a calibration profile's):
// unset efficiencies become 1.0, ns -> sim::Time. Precondition: the knobs
// passed check_calibration_knobs() (calibration_validator.h).
CalibrationSpec to_calibration_spec(const podsim::Calibration& calibration);

}  // namespace podsim::config::internal
