// Loading sweep files (proto/podsim/sweep.proto) into validated specs.
//
// The sweep's own rules are checked here (docs/sweeps.md): a path or "network"
// / "compute" per parameter, exactly one of values / linear / geometric,
// finite ranges with a positive step (factor > 1), zipped parameters of equal
// length, at most kMaxSweepPoints points, known network and compute names,
// the base files present. Whether a value suits its field is checked per
// point, by the topology and workload loaders: a point that breaks a rule is
// a row with status invalid, not a failed sweep.
//
// Every function throws InputError listing every problem found, each with the
// file, the field path, the reason and, for text input, the line:column.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/sweep_spec.h"

namespace podsim::config {

// Reads and parses a sweep file (text, or binary for ".pb" / ".binpb"). Base
// file names in it are taken relative to the file's directory.
SweepSpec load_sweep_file(const std::filesystem::path& path);

// Protobuf text format; base file names are taken relative to `base_dir`.
SweepSpec parse_sweep_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir);

}  // namespace podsim::config
