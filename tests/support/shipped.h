// The shipped example files, for tests of any layer: where the source tree
// is, and which topology a workload file names in its "# topology:" line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace podsim::testing {

// The source tree: $PODSIM_SOURCE_DIR (CTest sets it), else the working
// directory.
std::filesystem::path source_dir();

// The path after "# topology:" in the leading comment block of `file`, or
// nullopt when there is none (the exact form "# topology: PATH").
std::optional<std::string> topology_header(const std::filesystem::path& file);

// The files of `dir` (relative to source_dir()) ending in ".textproto", sorted.
std::vector<std::filesystem::path> textprotos(const std::string& dir);

}  // namespace podsim::testing
