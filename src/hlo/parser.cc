// module      := 'HloModule' name {',' header_attr} {computation}
// computation := ['ENTRY'] name [signature] '{' {instruction} '}' {',' key '=' value}
// signature   := '(' [param {',' param}] ')' '->' shape;  param := name ':' shape
// instruction := ['ROOT'] name '=' shape opcode '(' operands ')' {',' key '=' value}
#include "hlo/parser.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "hlo/attribute_values.h"
#include "hlo/lexer.h"
#include "hlo/parser_internal.h"

namespace podsim::hlo {
namespace {

using internal::PendingCall;

std::string quoted_name(std::string_view name) {
  std::string out = "%";
  out += name;
  return out;
}

void parse_header(Lexer& lex, Module& module) {
  const std::string_view keyword = lex.name();
  if (keyword != "HloModule") {
    lex.fail_at(0, "expected 'HloModule' at the start of the module");
  }
  module.name = lex.expect_name("the module name after HloModule");
  while (lex.consume(',')) {
    const std::string_view key = lex.expect_name("a module attribute name");
    lex.expect('=', "after module attribute ", key);
    if (key == "replica_count" || key == "num_partitions") {
      lex.peek();
      const uint32_t at = lex.offset();
      const int64_t n = lex.expect_integer("a count for ", key);
      if (n < 1) {
        lex.fail_at(at, std::string(key) + " must be >= 1, got " + std::to_string(n));
      }
      (key == "replica_count" ? module.replica_count : module.num_partitions) = n;
    } else if (key == "is_scheduled") {
      const std::string_view v = lex.name();
      if (v != "true" && v != "false") {
        lex.fail("expected true or false for is_scheduled");
      }
      module.is_scheduled = v == "true";
    } else if (key == "entry_computation_layout") {
      const uint32_t start = lex.offset();
      ProgramShape program;
      lex.expect('{', "to open entry_computation_layout");
      lex.expect('(', "to open the entry parameter shapes");
      if (!lex.consume(')')) {
        do {
          program.parameters.push_back(internal::parse_shape(lex));
        } while (lex.consume(','));
        lex.expect(')', "to close the entry parameter shapes");
      }
      if (!lex.consume("->")) {
        lex.fail("expected '->' before the entry result shape");
      }
      program.result = internal::parse_shape(lex);
      lex.expect('}', "to close entry_computation_layout");
      module.entry_computation_layout = std::move(program);
      module.entry_computation_layout_text = lex.text().substr(start, lex.offset() - start);
    } else {
      module.header_attributes.push_back({key, lex.raw_value(key)});
    }
  }
}

void parse_operands(Lexer& lex, Instruction& instr) {
  lex.expect('(', "to open the operand list of %", instr.name);
  if (instr.opcode == Opcode::kParameter) {
    instr.parameter_number = lex.expect_integer("a parameter number");
    if (instr.parameter_number < 0) {
      lex.fail("parameter number must be >= 0");
    }
  } else if (instr.opcode == Opcode::kConstant) {
    ExtraAttributes& e = *(instr.extra = std::make_unique<ExtraAttributes>());
    e.literal = internal::parse_literal(lex.raw_until_close("the literal of %", instr.name));
  } else if (lex.peek() != ')') {
    do {
      if (internal::at_shape(lex)) {
        internal::parse_shape(lex);  // older dumps: "f32[8]{0} %x"
      }
      instr.operand_names.push_back(
          lex.expect_name("an operand name in the operand list of %", instr.name));
    } while (lex.consume(','));
  }
  lex.expect(')', "to close the operand list of %", instr.name);
}

void parse_instruction(Lexer& lex, Computation& comp, ComputationId comp_id,
                       std::vector<PendingCall>& calls) {
  Instruction instr;
  lex.peek();
  instr.offset = lex.offset();
  std::string_view name = lex.name();
  if (name == "ROOT") {
    instr.is_root = true;
    lex.peek();
    instr.offset = lex.offset();
    name = lex.expect_name("an instruction name after ROOT");
  }
  if (name.empty()) {
    lex.fail("expected an instruction name or '}' to close computation " + quoted_name(comp.name));
  }
  instr.name = name;
  lex.expect('=', "after instruction name %", name);
  instr.shape = internal::parse_shape(lex);
  instr.opcode_name = lex.expect_name("an opcode for %", name);
  instr.opcode = opcode_from_name(instr.opcode_name);
  parse_operands(lex, instr);
  const auto id = static_cast<InstructionId>(comp.instructions.size());
  while (lex.consume(',')) {
    const std::string_view key = lex.expect_name("an attribute name of %", name);
    lex.expect('=', "after attribute ", key);
    internal::parse_attribute(lex, key, instr, id, comp_id, calls);
  }
  const bool inserted = comp.by_name.emplace(name, id).second;
  if (!inserted) {
    lex.fail_at(instr.offset, "duplicate instruction name " + quoted_name(name) +
                                  " in computation " + quoted_name(comp.name));
  }
  comp.instructions.push_back(std::move(instr));
}

void parse_computation(Lexer& lex, Module& module, std::vector<PendingCall>& calls) {
  Computation comp;
  lex.peek();
  comp.offset = lex.offset();
  std::string_view name = lex.name();
  if (name == "ENTRY") {
    comp.is_entry = true;
    name = lex.expect_name("a computation name after ENTRY");
  }
  if (name.empty()) {
    lex.fail("expected a computation (a name, or ENTRY)");
  }
  comp.name = name;
  const auto comp_id = static_cast<ComputationId>(module.computations.size());
  if (lex.consume('(')) {
    // The signature repeats the parameters' shapes; their instructions carry them.
    if (!lex.consume(')')) {
      do {
        lex.expect_name("a parameter name in the signature of " + quoted_name(name));
        lex.expect(':', "after a parameter name in the signature of " + quoted_name(name));
        internal::parse_shape(lex);
      } while (lex.consume(','));
      lex.expect(')', "to close the signature of " + quoted_name(name));
    }
    if (!lex.consume("->")) {
      lex.fail("expected '->' and the result shape of " + quoted_name(name));
    }
    internal::parse_shape(lex);
  }
  lex.expect('{', "to open the body of computation " + quoted_name(name));
  while (!lex.consume('}')) {
    if (lex.at_end()) {
      lex.fail("expected '}' to close computation " + quoted_name(name));
    }
    parse_instruction(lex, comp, comp_id, calls);
  }
  while (lex.consume(',')) {  // e.g. execution_thread="host"
    const std::string_view key = lex.expect_name("a computation attribute name");
    lex.expect('=', "after computation attribute " + std::string(key));
    lex.raw_value(key);
  }
  internal::resolve_computation(lex, comp);
  module.computations.push_back(std::move(comp));
}

}  // namespace

Module parse_module(std::string text, std::string file) {
  if (text.size() > kMaxHloTextBytes) {
    throw ParseError(file, 0, 0,
                     "HLO text of " + std::to_string(text.size()) + " bytes is over the limit of " +
                         std::to_string(kMaxHloTextBytes));
  }
  auto owned = std::make_unique<const std::string>(std::move(text));
  const std::string_view view = *owned;
  Module module(std::move(owned), file);
  Lexer lex(view, module.file());
  std::vector<PendingCall> calls;
  parse_header(lex, module);
  while (!lex.at_end()) {
    parse_computation(lex, module, calls);
  }
  internal::resolve_module(lex, module, calls);
  return module;
}

Module load_module(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    throw ParseError(path.string(), 0, 0, "cannot read HLO file: " + ec.message());
  }
  if (size > kMaxHloTextBytes) {
    throw ParseError(
        path.string(), 0, 0,
        "HLO file is over the limit of " + std::to_string(kMaxHloTextBytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    throw ParseError(path.string(), 0, 0, "cannot read HLO file");
  }
  return parse_module(std::move(buffer).str(), path.string());
}

}  // namespace podsim::hlo
