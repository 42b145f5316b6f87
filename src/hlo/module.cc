#include "hlo/module.h"

#include <algorithm>
#include <utility>

namespace podsim::hlo {

InstructionId Computation::find(std::string_view instruction_name) const {
  const auto it = by_name.find(instruction_name);
  return it == by_name.end() ? kNone : it->second;
}

InstructionId Computation::parameter(int64_t number) const {
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (instructions[i].opcode == Opcode::kParameter &&
        instructions[i].parameter_number == number) {
      return static_cast<InstructionId>(i);
    }
  }
  return kNone;
}

Module::Module(std::unique_ptr<const std::string> text, std::string file)
    : text_(std::move(text)), file_(std::move(file)) {
  line_starts_.push_back(0);
  const std::string& t = *text_;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\n') {
      line_starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
}

ComputationId Module::find(std::string_view computation_name) const {
  const auto it = by_name.find(computation_name);
  return it == by_name.end() ? kNone : it->second;
}

std::vector<ComputationId> called_computations(const Instruction& instr) {
  std::vector<ComputationId> out;
  for (const ComputationId c : {instr.to_apply, instr.condition, instr.body, instr.true_computation,
                                instr.false_computation}) {
    if (c != kNone) {
      out.push_back(c);
    }
  }
  out.insert(out.end(), instr.calls.begin(), instr.calls.end());
  out.insert(out.end(), instr.branch_computations.begin(), instr.branch_computations.end());
  return out;
}

SourcePosition Module::position(uint32_t offset) const {
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<int>(it - line_starts_.begin());
  return {line, static_cast<int>(offset - *(it - 1)) + 1};
}

}  // namespace podsim::hlo
