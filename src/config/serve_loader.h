// Loading serve files (proto/podsim/serve.proto, docs/serving.md) into a
// validated config::ServeSpec: the file's own rules, then every replica's
// topology and serving workload (the ordinary loaders, whose errors name
// those files) and the trace CSV (config/trace_loader.h).
//
// Throws InputError listing every problem found, each with the file, the
// field path, the reason and, for text input, the line:column.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "config/diagnostics.h"
#include "config/overrides.h"
#include "config/serve_spec.h"

namespace podsim::config {

// Reads a serve file (text, or binary for ".pb" / ".binpb"). File names in it
// are taken relative to its directory.
//
// `overrides` (config/serve_overrides.h: paths rooted at serve., topology.,
// workload., replicas[i].topology., replicas[i].workload.) are applied
// before any rule is checked: those of serve. to the serve file, then each
// replica's to its topology and workload as they load; a bad one is an
// InputError naming it (with the nearest valid paths for a wrong path).
// The spec records them all (ServeSpec::overrides), each replica's pod and
// workload those they took (PodSpec::overrides, WorkloadSpec::overrides).
ServeSpec load_serve_file(const std::filesystem::path& path, const Overrides& overrides = {});

// Protobuf text format; file names are taken relative to `base_dir`.
ServeSpec parse_serve_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir, const Overrides& overrides = {});

}  // namespace podsim::config
