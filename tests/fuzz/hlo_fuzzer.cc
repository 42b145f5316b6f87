// HLO text reading (src/hlo/): any bytes end in a Module or an
// hlo::ParseError, never a crash, hang or other exception; an accepted
// module then goes through every analysis, whose answers must be
// consistent with the module (ids in range, groups within the device
// count).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "hlo/analysis.h"
#include "hlo/parser.h"
#include "hlo/replica_groups.h"

namespace {

// Expanding groups is O(ids): bounded so one input stays fast.
constexpr int64_t kMaxExpandedIds = 4096;

void check(bool ok) {
  if (!ok) {
    std::abort();  // an analysis broke its contract: a finding
  }
}

void exercise_groups(const podsim::hlo::Module& module, const podsim::hlo::Instruction& instr) {
  using namespace podsim::hlo;
  if (!instr.extra || !instr.extra->replica_groups) {
    return;
  }
  const ReplicaGroups& groups = *instr.extra->replica_groups;
  if (groups.iota && groups.group_count * groups.group_size > kMaxExpandedIds) {
    return;
  }
  const auto expanded = expand_groups(groups);
  check(!groups.iota || static_cast<int64_t>(expanded.size()) == groups.group_count);
  const std::optional<bool> global =
      has_use_global_device_ids_field(instr.opcode)
          ? std::optional<bool>(instr.use_global_device_ids.value_or(false))
          : std::nullopt;
  const std::optional<GroupMode> mode = group_mode(instr.channel_id.has_value(), global);
  if (!mode || module.replica_count * module.num_partitions > kMaxExpandedIds) {
    return;
  }
  const auto devices = device_groups(groups, *mode, module.replica_count, module.num_partitions);
  if (devices) {
    for (const auto& g : *devices) {
      for (const int64_t id : g) {
        check(id >= 0 && id < module.replica_count * module.num_partitions);
      }
    }
  }
}

void exercise(const podsim::hlo::Module& module) {
  using namespace podsim::hlo;
  check(module.entry >= 0 && module.entry < static_cast<int32_t>(module.computations.size()));
  for (const Computation& c : module.computations) {
    check(c.root >= 0 && c.root < static_cast<int32_t>(c.instructions.size()));
    for (const Instruction& instr : c.instructions) {
      (void)module.position(instr.offset);
      (void)byte_size(instr.shape);
      (void)to_string(instr.shape);
      (void)dot_flops(c, instr);
      (void)convolution_flops(c, instr);
      (void)elementwise_elements(instr);
      (void)reduce_input_elements(c, instr);
      (void)while_trip_count(module, c, instr);
      exercise_groups(module, instr);
    }
    const AsyncPairs pairs = match_async_pairs(module, c);
    for (const AsyncPair& p : pairs.pairs) {
      check(p.start >= 0 && p.done >= 0);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const podsim::hlo::Module module = podsim::hlo::parse_module(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz.hlo");
    exercise(module);
  } catch (const podsim::hlo::ParseError&) {
  }
  return 0;
}
