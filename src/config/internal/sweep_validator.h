// Every rule a sweep file must satisfy (docs/sweeps.md), checked once, in one
// pass that reports all violations.
//
// Internal to src/config: it reads the generated podsim::Sweep message. After
// validate_sweep() returns no issues, to_sweep_spec() cannot fail.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/internal/issue_list.h"
#include "config/sweep_spec.h"

namespace podsim {
class Sweep;
}  // namespace podsim

namespace podsim::config::internal {

// `base_dir` resolves the base file names, which must exist.
std::vector<FieldIssue> validate_sweep(const podsim::Sweep& sweep,
                                       const std::filesystem::path& base_dir);

// Precondition: validate_sweep() found no issues.
SweepSpec to_sweep_spec(const podsim::Sweep& sweep, const std::filesystem::path& base_dir,
                        std::string source_file);

}  // namespace podsim::config::internal
