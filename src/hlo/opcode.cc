#include "hlo/opcode.h"

#include <array>
#include <string_view>
#include <unordered_map>

namespace podsim::hlo {
namespace {

struct OpcodeInfo {
  std::string_view name;
  OpcodeCategory category;
};

constexpr std::array kOpcodes = {
#define PODSIM_HLO_OPCODE_ROW(e, name, category) OpcodeInfo{name, OpcodeCategory::category},
    PODSIM_HLO_OPCODES(PODSIM_HLO_OPCODE_ROW)
#undef PODSIM_HLO_OPCODE_ROW
};

const std::unordered_map<std::string_view, Opcode>& opcode_table() {
  // A function-local constant, built once on first use (no mutable global).
  static const std::unordered_map<std::string_view, Opcode> table = [] {
    std::unordered_map<std::string_view, Opcode> t;
    for (size_t i = 0; i < kOpcodes.size(); ++i) {
      if (!kOpcodes[i].name.empty()) {
        t.emplace(kOpcodes[i].name, static_cast<Opcode>(i));
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

Opcode opcode_from_name(std::string_view name) {
  const auto& table = opcode_table();
  const auto it = table.find(name);
  return it == table.end() ? Opcode::kOther : it->second;
}

std::string_view opcode_name(Opcode opcode) {
  return kOpcodes[static_cast<size_t>(opcode)].name;
}

OpcodeCategory opcode_category(Opcode opcode) {
  return kOpcodes[static_cast<size_t>(opcode)].category;
}

bool has_use_global_device_ids_field(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

}  // namespace podsim::hlo
