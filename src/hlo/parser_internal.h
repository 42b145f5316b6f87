// The pieces of the HLO reader (parser.cc drives them): shapes, attribute
// values, and the resolution of names once a computation or the module has
// been read. Not part of the layer's interface.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hlo/lexer.h"
#include "hlo/module.h"

namespace podsim::hlo::internal {

// Which field of an instruction a computation name fills.
enum class CallRole : uint8_t {
  kToApply,
  kBody,
  kCondition,
  kTrueComputation,
  kFalseComputation,
  kCalls,
  kBranch,
};

// A computation named by an instruction, resolved once every computation
// has been read (callees may follow their callers).
struct PendingCall {
  ComputationId computation = kNone;
  InstructionId instruction = kNone;
  CallRole role = CallRole::kToApply;
  std::string_view name;  // a view into the text: its offset locates errors
};

// Whether a shape starts at the cursor (an operand's optional inline shape).
bool at_shape(Lexer& lex);
// shape := type '[' dims ']' [layout] | '(' [shape {',' shape}] ')'.
// Recursion is bounded by kMaxShapeDepth; sizes are checked against int64.
Shape parse_shape(Lexer& lex, int depth = 0);

// `{1,2,3}` or `{}`.
std::vector<int64_t> parse_int_list(Lexer& lex, std::string_view what);
// Parses the value of attribute `key` of `instr` (the cursor after '=').
void parse_attribute(Lexer& lex, std::string_view key, Instruction& instr, InstructionId id,
                     ComputationId computation, std::vector<PendingCall>& calls);

// Resolves operand and control-predecessor names, picks the root; checks
// duplicates and missing names. Throws ParseError.
void resolve_computation(const Lexer& lex, Computation& computation);
// Resolves computation names, picks the entry and checks the call graph has
// no cycle. Throws ParseError.
void resolve_module(const Lexer& lex, Module& module, const std::vector<PendingCall>& calls);

}  // namespace podsim::hlo::internal
