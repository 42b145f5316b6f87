// Loading calibration profiles (proto/podsim/calibration.proto) and applying
// them to pods: `--calibration FILE` (docs/inputs.md, "Calibration profiles").
//
// A profile holds one chip's losses against its published hardware (the
// knobs of a topology's `calibration`), each cited. Loading follows the
// topology loader's conventions: text or binary by extension, unknown fields
// rejected, every problem an InputError naming the file, the field path, the
// reason and, for text input, the line:column. Profiles take no --set
// overrides: they are small files, edited as files.
//
// Applying a profile replaces the pod's calibration whole (a topology file's
// own calibration included, which the spec then records), so the knobs a run
// used are the profile's and nothing else.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/calibration_spec.h"
#include "config/diagnostics.h"
#include "config/topology_spec.h"

namespace podsim::config {

// Reads and parses a profile. The extension picks the format, as for
// topologies: ".pb" and ".binpb" are binary, everything else is text.
// source_file and diagnostics name the file as `path` spells it.
CalibrationProfileSpec load_calibration_file(const std::filesystem::path& path);

// Protobuf text format; `source_name` names the input in diagnostics and
// becomes CalibrationProfileSpec::source_file.
CalibrationProfileSpec parse_calibration_text(std::string_view text, std::string source_name);

// Protobuf binary wire format. Unknown fields are errors here too.
CalibrationProfileSpec parse_calibration_binary(std::string_view bytes, std::string source_name);

// Gives `pod` the profile's calibration in place of its own. Throws
// InputError, naming the profile's file, when the profile's chip is not the
// pod's (ChipSpec::name; at the profile's `chip` field), or when the pod's
// --set overrides set topology.calibration.* (the profile would silently
// replace them). Sets replaced_topology_calibration when the pod had a
// calibration of its own (any knob or source). O(overrides).
void apply_calibration(const CalibrationProfileSpec& profile, PodSpec& pod);

}  // namespace podsim::config
