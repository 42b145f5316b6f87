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
#include "config/serve_spec.h"

namespace podsim::config {

// Reads a serve file (text, or binary for ".pb" / ".binpb"). File names in it
// are taken relative to its directory.
ServeSpec load_serve_file(const std::filesystem::path& path);

// Protobuf text format; file names are taken relative to `base_dir`.
ServeSpec parse_serve_text(std::string_view text, std::string source_name,
                           const std::filesystem::path& base_dir);

}  // namespace podsim::config
