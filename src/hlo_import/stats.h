// Totals over every computation of a module, each instruction counted once
// (a while body once, not per iteration; fusions' inner dots included):
// dot FLOPs (hlo::dot_flops) and, per collective kind, how many and their V
// (workload.proto's bytes, as hlo_import costs them; async starts counted
// under their synchronous name). What `podsim hlo-stats` prints and
// scripts/hlo_counts.py counts independently.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "hlo/module.h"

namespace podsim::hlo_import {

struct CollectiveTotal {
  uint64_t count = 0;
  uint64_t bytes = 0;
};

struct ModuleStats {
  uint64_t dots = 0;
  uint64_t dot_flops = 0;
  std::map<std::string, CollectiveTotal> collectives;  // by opcode name
};

// Throws config::InputError for a collective whose groups are invalid.
ModuleStats module_stats(const hlo::Module& module);

}  // namespace podsim::hlo_import
