// Loading pod descriptions (proto/podsim/topology.proto) into validated specs.
//
// src/config owns input files: it parses them (Protobuf text or binary),
// checks every rule once (docs/inputs.md lists the rules) and converts them
// into the plain, immutable specs of config/topology_spec.h. Nothing outside
// this layer sees a generated protobuf type or re-checks input.
//
// Every function throws InputError listing every problem found, each with the
// file, the field path, the reason and, for text input, the line:column.
//
// Every loader takes the `--set` overrides (config/overrides.h) and applies
// those whose path starts with "topology." to the parsed podsim.Topology
// before validation (the others are left for the workload loaders); bad ones
// are InputErrors too. The spec records them (PodSpec::overrides) and the
// SHA-256 of the input's bytes (PodSpec::source_sha256).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/topology_spec.h"

namespace podsim::config {

// Reads and parses a topology file. The extension picks the format:
// ".textproto", ".txtpb", ".pbtxt" are text; ".pb", ".binpb" are binary;
// anything else is read as text. source_file and diagnostics name the file as
// `path` spells it.
PodSpec load_topology_file(const std::filesystem::path& path, const Overrides& overrides = {});
// The same applying the overrides of `roots` ("topology" and, for a serve
// file's replica i, "replicas[i].topology": config/serve_overrides.h), each
// path reported under its own root.
PodSpec load_topology_file(const std::filesystem::path& path, const Overrides& overrides,
                           const OverrideRoots& roots);

// Protobuf text format. `source_name` names the input in diagnostics and
// becomes PodSpec::source_file.
PodSpec parse_topology_text(std::string_view text, std::string source_name,
                            const Overrides& overrides = {});

// Protobuf binary wire format. Unknown fields are errors here too.
PodSpec parse_topology_binary(std::string_view bytes, std::string source_name,
                              const Overrides& overrides = {});

// The pod compiled into the binary: topologies/v5e-16x16.textproto (a TPU v5e
// 16x16 torus) embedded at build time, so the two cannot disagree.
// source_file is "<embedded:v5e-16x16>".
PodSpec default_topology(const Overrides& overrides = {});

// The text default_topology() parses, comments included.
std::string default_topology_text();

// A topology read and parsed once, then loaded many times with different
// overrides, as a sweep's points load their base input: each load() returns
// what load_topology_file() (or default_topology()) would with those overrides,
// diagnostics included, without reading or parsing the input again. An
// input that cannot be read or parsed makes every load() throw its
// InputError. Copies share the parsed message; load() is const and may run
// on several threads at once.
class TopologySource {
 public:
  static TopologySource file(const std::filesystem::path& path);
  static TopologySource embedded();
  PodSpec load(const Overrides& overrides = {}) const;

  struct Parsed;  // defined in the .cc

 private:
  explicit TopologySource(std::shared_ptr<const Parsed> parsed) : parsed_(std::move(parsed)) {}
  std::shared_ptr<const Parsed> parsed_;
};

}  // namespace podsim::config
