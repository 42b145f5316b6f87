// Shared by the CLI tests: run the whole command line in-process and capture
// its exit code and streams, and find the source tree (topologies/,
// workloads/) from PODSIM_SOURCE_DIR, which CTest sets.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli/context.h"

namespace podsim::cli::testing {

struct Result {
  int code;
  std::string out;
  std::string err;
};

inline Result run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

inline std::filesystem::path root() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

}  // namespace podsim::cli::testing
