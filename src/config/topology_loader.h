// Loading pod descriptions (proto/podsim/topology.proto) into validated specs.
//
// src/config owns input files: it parses them (Protobuf text or binary),
// checks every rule once (docs/inputs.md lists the rules) and converts them
// into the plain, immutable specs of config/topology_spec.h. Nothing outside
// this layer sees a generated protobuf type or re-checks input.
//
// Every function throws InputError listing every problem found, each with the
// file, the field path, the reason and, for text input, the line:column.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/topology_spec.h"

namespace podsim::config {

// Reads and parses a topology file. The extension picks the format:
// ".textproto", ".txtpb", ".pbtxt" are text; ".pb", ".binpb" are binary;
// anything else is read as text. source_file and diagnostics name the file as
// `path` spells it.
PodSpec load_topology_file(const std::filesystem::path& path);

// Protobuf text format. `source_name` names the input in diagnostics and
// becomes PodSpec::source_file.
PodSpec parse_topology_text(std::string_view text, std::string source_name);

// Protobuf binary wire format. Unknown fields are errors here too.
PodSpec parse_topology_binary(std::string_view bytes, std::string source_name);

// The pod compiled into the binary: topologies/v5e-16x16.textproto (a TPU v5e
// 16x16 torus) embedded at build time, so the two cannot disagree.
// source_file is "<embedded:v5e-16x16>".
PodSpec default_topology();

// The text default_topology() parses, comments included.
std::string default_topology_text();

}  // namespace podsim::config
