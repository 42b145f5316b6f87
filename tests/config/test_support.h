// Helpers shared by the config tests.
#pragma once

#include <gmock/gmock.h>

#include <filesystem>
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "config/topology_spec.h"
#include "podsim/topology.pb.h"
#include "shipped.h"

namespace podsim::config::testing {

// The source tree (tests/support/shipped.h).
using podsim::testing::source_dir;

// A small valid pod: a 4x4x2 torus (x and y wrap, z is a 2-chip line), one
// slice, no calibration. Tests break one rule at a time on a copy.
podsim::Topology valid_topology();

// Prints `topology` as text, parses it, and returns the diagnostics of the
// InputError it must raise (an empty list, and a test failure, if it loads).
std::vector<Diagnostic> text_errors(const podsim::Topology& topology);
// Prints `topology` as text and loads it as "test.textproto" (it must load).
PodSpec load(const podsim::Topology& topology);
std::vector<Diagnostic> text_errors(const std::string& text);

// Matches a diagnostic by exact field path and a substring of its message.
inline auto IsDiagnostic(const std::string& field, const std::string& message_part) {
  return ::testing::AllOf(
      ::testing::Field("field", &Diagnostic::field, field),
      ::testing::Field("message", &Diagnostic::message, ::testing::HasSubstr(message_part)));
}

// A directory under the system temp dir, removed (with its contents) on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `contents` to `name` inside the directory and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& contents) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace podsim::config::testing
