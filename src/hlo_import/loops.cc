// while trip counts and conditional branches: what the user states first,
// then what the module says; never a guess.
#include <string>
#include <vector>

#include "hlo/analysis.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {

uint32_t trip_count(const hlo::Module& module, const hlo::Computation& computation,
                    const hlo::Instruction& instruction, const ImportOptions& options) {
  if (const auto it = options.trip_counts.find(instruction.name); it != options.trip_counts.end()) {
    return it->second;
  }
  const auto n = hlo::while_trip_count(module, computation, instruction);
  if (!n) {
    std::string m = "the trip count of this while is not known from its backend_config or its ";
    m += "condition (docs/hlo.md, \"While trip counts\"); give it with --hlo-trip-count ";
    m += instruction.name;
    m += "=N";
    fail(module, instruction, m);
  }
  if (*n > static_cast<int64_t>(UINT32_MAX)) {
    fail(module, instruction,
         "a trip count of " + std::to_string(*n) + " is more than podsim plays (2^32 - 1)");
  }
  return static_cast<uint32_t>(*n);
}

std::vector<hlo::ComputationId> branches(const hlo::Instruction& instruction) {
  if (!instruction.branch_computations.empty()) {
    return instruction.branch_computations;
  }
  std::vector<hlo::ComputationId> b;
  if (instruction.true_computation != hlo::kNone) {
    b.push_back(instruction.true_computation);
  }
  if (instruction.false_computation != hlo::kNone) {
    b.push_back(instruction.false_computation);
  }
  return b;
}

size_t branch_index(const hlo::Module& module, const hlo::Instruction& instruction,
                    const ImportOptions& options, Warnings& warnings) {
  const size_t count = branches(instruction).size();
  if (count == 0) {
    fail(module, instruction, "a conditional without branch computations");
  }
  if (const auto it = options.branches.find(instruction.name); it != options.branches.end()) {
    if (it->second >= count) {
      fail(module, instruction,
           "--hlo-branch " + std::string(instruction.name) + "=" + std::to_string(it->second) +
               ": the conditional has branches 0 to " + std::to_string(count - 1));
    }
    return it->second;
  }
  std::string w = "conditional ";
  w += describe(module, instruction);
  w += " runs its branch 0";
  w += instruction.true_computation != hlo::kNone ? " (true_computation)" : "";
  w += "; choose another with --hlo-branch ";
  w += instruction.name;
  w += "=I";
  warnings.add(w);
  return 0;
}

}  // namespace podsim::hlo_import::internal
