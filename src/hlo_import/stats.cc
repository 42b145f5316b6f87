// The module's totals for `podsim hlo-stats` (stats.h).
#include "hlo_import/stats.h"

#include "hlo/analysis.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import {
namespace {

void count(const hlo::Module& module, const hlo::Computation& c, ModuleStats& s) {
  for (const hlo::Instruction& i : c.instructions) {
    if (i.opcode == hlo::Opcode::kDot) {
      s.dot_flops += static_cast<uint64_t>(hlo::dot_flops(c, i).value_or(0));
      ++s.dots;
    }
    const bool collective = hlo::opcode_category(i.opcode) == hlo::OpcodeCategory::kCollective;
    const bool start = i.opcode == hlo::Opcode::kAllReduceStart ||
                       i.opcode == hlo::Opcode::kAllGatherStart ||
                       i.opcode == hlo::Opcode::kCollectivePermuteStart;
    if (!collective && !start) {
      continue;
    }
    // The kind as its synchronous opcode names it.
    std::string kind(i.opcode_name);
    if (start) {
      kind.resize(kind.size() - 6);  // "-start"
    }
    uint64_t group = 1;
    if (i.opcode != hlo::Opcode::kCollectivePermute &&
        i.opcode != hlo::Opcode::kCollectivePermuteStart) {
      const auto groups = internal::collective_device_groups(module, i, i);
      group = groups.empty() ? 1 : groups[0].size();
    }
    const auto bytes = internal::collective_bytes(c, i, group);
    CollectiveTotal& t = s.collectives[kind];
    ++t.count;
    t.bytes += bytes.value_or(0);
  }
}

}  // namespace

ModuleStats module_stats(const hlo::Module& module) {
  ModuleStats s;
  for (const hlo::Computation& c : module.computations) {
    count(module, c, s);
  }
  return s;
}

}  // namespace podsim::hlo_import
