// Name resolution and the semantic checks that make later stages safe:
// every operand, control predecessor and called computation names something;
// names are unique; one ENTRY; one ROOT; the call graph has no cycle.
#include <string>

#include "hlo/parser_internal.h"

namespace podsim::hlo::internal {
namespace {

std::string percent(std::string_view name) {
  std::string out = "%";
  out += name;
  return out;
}

// The offset of a view into the lexer's text (names are views into it).
// The offset of a name (a view into the lexer's text), at its '%' if written.
size_t offset_of(const Lexer& lex, std::string_view view) {
  const auto at = static_cast<size_t>(view.data() - lex.text().data());
  return at > 0 && lex.text()[at - 1] == '%' ? at - 1 : at;
}

InstructionId resolve_name(const Lexer& lex, const Computation& comp, const Instruction& instr,
                           std::string_view name, std::string_view role) {
  const InstructionId id = comp.find(name);
  if (id == kNone) {
    lex.fail_at(offset_of(lex, name), std::string(role) + " " + percent(name) + " of " +
                                          percent(instr.name) + " names no instruction in " +
                                          "computation " + percent(comp.name));
  }
  return id;
}

}  // namespace

void resolve_computation(const Lexer& lex, Computation& comp) {
  if (comp.instructions.empty()) {
    lex.fail_at(comp.offset, "computation " + percent(comp.name) + " has no instructions");
  }
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    Instruction& instr = comp.instructions[i];
    instr.operands.reserve(instr.operand_names.size());
    for (const std::string_view name : instr.operand_names) {
      instr.operands.push_back(resolve_name(lex, comp, instr, name, "operand"));
    }
    if (instr.extra) {
      for (const std::string_view name : instr.extra->control_predecessor_names) {
        instr.extra->control_predecessors.push_back(
            resolve_name(lex, comp, instr, name, "control predecessor"));
      }
    }
    if (instr.is_root) {
      if (comp.root != kNone) {
        lex.fail_at(instr.offset,
                    "second ROOT in computation " + percent(comp.name) + " (the first is " +
                        percent(comp.instructions[static_cast<size_t>(comp.root)].name) + ")");
      }
      comp.root = static_cast<InstructionId>(i);
    }
  }
  if (comp.root == kNone) {  // as XLA: the last instruction is the root
    comp.root = static_cast<InstructionId>(comp.instructions.size() - 1);
  }
}

void resolve_module(const Lexer& lex, Module& module, const std::vector<PendingCall>& calls) {
  for (size_t c = 0; c < module.computations.size(); ++c) {
    const Computation& comp = module.computations[c];
    if (!module.by_name.emplace(comp.name, static_cast<ComputationId>(c)).second) {
      lex.fail_at(comp.offset, "duplicate computation name " + percent(comp.name));
    }
    if (comp.is_entry) {
      if (module.entry != kNone) {
        lex.fail_at(comp.offset,
                    "second ENTRY computation " + percent(comp.name) + " (the first is " +
                        percent(module.computations[static_cast<size_t>(module.entry)].name) + ")");
      }
      module.entry = static_cast<ComputationId>(c);
    }
  }
  if (module.entry == kNone) {
    lex.fail_at(lex.text().size(), "expected an ENTRY computation: the module has none");
  }
  // Callees of each computation, for the cycle check below.
  std::vector<std::vector<ComputationId>> callees(module.computations.size());
  for (const PendingCall& call : calls) {
    Computation& comp = module.computations[static_cast<size_t>(call.computation)];
    Instruction& instr = comp.instructions[static_cast<size_t>(call.instruction)];
    const ComputationId target = module.find(call.name);
    if (target == kNone) {
      lex.fail_at(offset_of(lex, call.name), "computation " + percent(call.name) + " called by " +
                                                 percent(instr.name) + " names no computation");
    }
    callees[static_cast<size_t>(call.computation)].push_back(target);
    switch (call.role) {
      case CallRole::kToApply:
        instr.to_apply = target;
        break;
      case CallRole::kBody:
        instr.body = target;
        break;
      case CallRole::kCondition:
        instr.condition = target;
        break;
      case CallRole::kTrueComputation:
        instr.true_computation = target;
        break;
      case CallRole::kFalseComputation:
        instr.false_computation = target;
        break;
      case CallRole::kCalls:
        instr.calls.push_back(target);
        break;
      case CallRole::kBranch:
        instr.branch_computations.push_back(target);
        break;
    }
  }
  // Iterative depth-first search: 0 unvisited, 1 on the stack, 2 done. A
  // computation reached while on the stack calls itself.
  std::vector<uint8_t> state(module.computations.size(), 0);
  for (size_t root = 0; root < module.computations.size(); ++root) {
    if (state[root] != 0) {
      continue;
    }
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};  // (computation, next callee)
    state[root] = 1;
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      if (next == callees[c].size()) {
        state[c] = 2;
        stack.pop_back();
        continue;
      }
      const auto callee = static_cast<size_t>(callees[c][next++]);
      if (state[callee] == 1) {
        const Computation& comp = module.computations[callee];
        lex.fail_at(comp.offset, "computation " + percent(comp.name) + " calls itself (through " +
                                     percent(module.computations[c].name) + ")");
      }
      if (state[callee] == 0) {
        state[callee] = 1;
        stack.emplace_back(callee, 0);
      }
    }
  }
}

}  // namespace podsim::hlo::internal
