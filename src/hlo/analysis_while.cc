// while_trip_count: the rules are in analysis.h and docs/hlo.md.
#include <cctype>
#include <limits>
#include <string>
#include <string_view>

#include "hlo/analysis.h"

namespace podsim::hlo {
namespace {

// "known_trip_count":{"n":"12"} in a backend_config (spaces allowed), as
// JSON or inside a quoted string (backslashes dropped first).
std::optional<int64_t> known_trip_count(std::string_view raw) {
  if (raw.find("known_trip_count") == std::string_view::npos) {
    return std::nullopt;
  }
  std::string unescaped;
  for (const char ch : raw) {
    if (ch != '\\') {
      unescaped += ch;
    }
  }
  const std::string_view config = unescaped;
  const size_t key = config.find("known_trip_count");
  if (key == std::string_view::npos) {
    return std::nullopt;
  }
  size_t p = config.find("\"n\"", key);
  if (p == std::string_view::npos) {
    return std::nullopt;
  }
  p += 3;
  while (p < config.size() &&
         (config[p] == ' ' || config[p] == ':' || config[p] == '"' || config[p] == '\\')) {
    ++p;
  }
  int64_t n = 0;
  size_t digits = 0;
  while (p < config.size() && std::isdigit(static_cast<unsigned char>(config[p])) != 0) {
    if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) {
      return std::nullopt;
    }
    n = n * 10 + (config[p] - '0');
    ++p;
    ++digits;
  }
  return digits > 0 ? std::optional<int64_t>(n) : std::nullopt;
}

const Instruction& at(const Computation& c, InstructionId id) {
  return c.instructions[static_cast<size_t>(id)];
}

// The integer value of a scalar integer constant.
std::optional<int64_t> constant_value(const Instruction& instr) {
  if (instr.opcode != Opcode::kConstant || !instr.extra || !instr.extra->literal ||
      !instr.extra->literal->is_integer || !instr.shape.dims.empty()) {
    return std::nullopt;
  }
  return instr.extra->literal->integer;
}

// k when `instr` is get-tuple-element(parameter(0)), index=k.
std::optional<int64_t> loop_variable_index(const Computation& c, const Instruction& instr) {
  if (instr.opcode != Opcode::kGetTupleElement || instr.operands.size() != 1) {
    return std::nullopt;
  }
  const Instruction& param = at(c, instr.operands[0]);
  if (param.opcode != Opcode::kParameter || param.parameter_number != 0) {
    return std::nullopt;
  }
  return instr.index;
}

enum class Cmp { kLt, kLe, kGt, kGe, kNe, kEq };

std::optional<Cmp> comparison(std::string_view direction, bool flipped) {
  if (direction == "LT") {
    return flipped ? Cmp::kGt : Cmp::kLt;
  }
  if (direction == "LE") {
    return flipped ? Cmp::kGe : Cmp::kLe;
  }
  if (direction == "GT") {
    return flipped ? Cmp::kLt : Cmp::kGt;
  }
  if (direction == "GE") {
    return flipped ? Cmp::kLe : Cmp::kGe;
  }
  if (direction == "NE") {
    return Cmp::kNe;
  }
  if (direction == "EQ") {
    return Cmp::kEq;
  }
  return std::nullopt;
}

// Iterations of for (i = init; i CMP bound; i += step), or nullopt if it
// never ends. 128-bit arithmetic: no difference of two int64 overflows.
std::optional<int64_t> count_iterations(Cmp cmp, int64_t init, int64_t bound, int64_t step) {
  __extension__ typedef __int128 I128;  // GCC and clang; -Wpedantic-clean
  const I128 i = init;
  const I128 c = bound;
  const I128 s = step;
  I128 n = 0;
  switch (cmp) {
    case Cmp::kLt:
      if (i >= c)
        return 0;
      if (s <= 0)
        return std::nullopt;
      n = (c - i + s - 1) / s;
      break;
    case Cmp::kLe:
      if (i > c)
        return 0;
      if (s <= 0)
        return std::nullopt;
      n = (c - i) / s + 1;
      break;
    case Cmp::kGt:
      if (i <= c)
        return 0;
      if (s >= 0)
        return std::nullopt;
      n = (i - c + (-s) - 1) / (-s);
      break;
    case Cmp::kGe:
      if (i < c)
        return 0;
      if (s >= 0)
        return std::nullopt;
      n = (i - c) / (-s) + 1;
      break;
    case Cmp::kNe:
      if (i == c)
        return 0;
      if (s == 0 || (c - i) % s != 0 || (c - i) / s < 0)
        return std::nullopt;
      n = (c - i) / s;
      break;
    case Cmp::kEq:
      if (i != c)
        return 0;
      if (s == 0)
        return std::nullopt;
      n = 1;
      break;
  }
  if (n > std::numeric_limits<int64_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(n);
}

// The step S of body element k: add(gte(param, k), constant S) in either
// order, or subtract(gte(param, k), constant S) as -S.
std::optional<int64_t> loop_step(const Computation& body, int64_t k) {
  const Instruction& root = body.root_instruction();
  if (root.opcode != Opcode::kTuple || k < 0 || k >= static_cast<int64_t>(root.operands.size())) {
    return std::nullopt;
  }
  const Instruction& update = at(body, root.operands[static_cast<size_t>(k)]);
  if ((update.opcode != Opcode::kAdd && update.opcode != Opcode::kSubtract) ||
      update.operands.size() != 2) {
    return std::nullopt;
  }
  const Instruction& a = at(body, update.operands[0]);
  const Instruction& b = at(body, update.operands[1]);
  if (loop_variable_index(body, a) == k) {
    const std::optional<int64_t> s = constant_value(b);
    if (!s || (update.opcode == Opcode::kSubtract && *s == std::numeric_limits<int64_t>::min())) {
      return std::nullopt;
    }
    return update.opcode == Opcode::kAdd ? *s : -*s;
  }
  if (update.opcode == Opcode::kAdd && loop_variable_index(body, b) == k) {
    return constant_value(a);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> while_trip_count(const Module& module, const Computation& computation,
                                        const Instruction& w) {
  if (w.opcode != Opcode::kWhile) {
    return std::nullopt;
  }
  if (const std::optional<int64_t> n = known_trip_count(w.backend_config)) {
    return n;
  }
  if (w.condition == kNone || w.body == kNone || w.operands.size() != 1) {
    return std::nullopt;
  }
  const Computation& cond = module.computations[static_cast<size_t>(w.condition)];
  const Computation& body = module.computations[static_cast<size_t>(w.body)];
  const Instruction& cmp = cond.root_instruction();
  if (cmp.opcode != Opcode::kCompare || cmp.operands.size() != 2) {
    return std::nullopt;
  }
  const Instruction& lhs = at(cond, cmp.operands[0]);
  const Instruction& rhs = at(cond, cmp.operands[1]);
  std::optional<int64_t> k = loop_variable_index(cond, lhs);
  std::optional<int64_t> bound = constant_value(rhs);
  bool flipped = false;
  if (!k || !bound) {
    k = loop_variable_index(cond, rhs);
    bound = constant_value(lhs);
    flipped = true;
  }
  const std::optional<Cmp> op = comparison(cmp.direction, flipped);
  if (!k || !bound || !op) {
    return std::nullopt;
  }
  const Instruction& init_tuple = at(computation, w.operands[0]);
  if (init_tuple.opcode != Opcode::kTuple || *k < 0 ||
      *k >= static_cast<int64_t>(init_tuple.operands.size())) {
    return std::nullopt;
  }
  const std::optional<int64_t> init =
      constant_value(at(computation, init_tuple.operands[static_cast<size_t>(*k)]));
  const std::optional<int64_t> step = loop_step(body, *k);
  if (!init || !step) {
    return std::nullopt;
  }
  return count_iterations(*op, *init, *bound, *step);
}

}  // namespace podsim::hlo
