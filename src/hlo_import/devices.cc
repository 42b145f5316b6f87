// Devices onto chips, and the layer's error and warning helpers.
#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {

std::string describe(const hlo::Module& module, const hlo::Instruction& instruction) {
  const hlo::SourcePosition p = module.position(instruction.offset);
  std::string s = "%";
  s += instruction.name;
  s += " (line ";
  s += std::to_string(p.line);
  s += ", column ";
  s += std::to_string(p.column);
  s += ")";
  return s;
}

void fail(const hlo::Module& module, const hlo::Instruction& instruction,
          const std::string& message) {
  const hlo::SourcePosition p = module.position(instruction.offset);
  std::string text = "%";
  text += instruction.name;
  text += ": ";
  text += message;
  throw config::InputError(config::Diagnostic{module.file(), "", p.line, p.column, text});
}

void Warnings::add(const std::string& key, const std::string& text) {
  if (seen_.insert(key).second) {
    list_.push_back(text);
  }
}

DeviceMap::DeviceMap(const hlo::Module& module, const topo::Pod& pod,
                     const std::vector<uint32_t>& assignment)
    : replicas_(module.replica_count), partitions_(module.num_partitions) {
  const auto refuse = [&module](const std::string& message) {
    throw config::InputError(config::Diagnostic{module.file(), "", 0, 0, message});
  };
  const uint64_t chips = pod.chip_count();
  const bool fits = replicas_ >= 1 && partitions_ >= 1 &&
                    static_cast<uint64_t>(replicas_) <= chips &&
                    static_cast<uint64_t>(partitions_) <= chips &&
                    static_cast<uint64_t>(replicas_ * partitions_) == chips;
  if (!fits) {
    std::string m = "the module runs on replica_count x num_partitions = ";
    m += std::to_string(replicas_);
    m += " x ";
    m += std::to_string(partitions_);
    m += " devices, and pod '";
    m += pod.spec().name;
    m += "' has ";
    m += std::to_string(chips);
    m += " chips: give a topology with as many chips as the module has devices";
    refuse(m);
  }
  if (assignment.empty()) {
    chips_.resize(chips);
    for (uint32_t d = 0; d < chips; ++d) {
      chips_[d] = d;
    }
    return;
  }
  if (assignment.size() != chips) {
    refuse("--hlo-devices lists " + std::to_string(assignment.size()) + " chips for " +
           std::to_string(chips) + " devices: list one chip per device");
  }
  std::vector<bool> used(chips, false);
  for (size_t d = 0; d < assignment.size(); ++d) {
    const uint32_t c = assignment[d];
    if (c >= chips || used[c]) {
      refuse("--hlo-devices: device " + std::to_string(d) + " on chip " + std::to_string(c) +
             (c >= chips ? ", not a chip of pod '" + pod.spec().name + "' (0 to " +
                               std::to_string(chips - 1) + ")"
                         : ", which an earlier device already has"));
    }
    used[c] = true;
  }
  chips_.assign(assignment.begin(), assignment.end());
}

}  // namespace podsim::hlo_import::internal
