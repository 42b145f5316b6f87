// Attribute values of instructions: the typed ones podsim uses, the ones
// skipped structurally (sharding, frontend_attributes), and any other kept
// as raw text. docs/hlo.md lists them.
#include <string>

#include "hlo/attribute_values.h"
#include "hlo/parser_internal.h"

namespace podsim::hlo::internal {
namespace {

ExtraAttributes& extra(Instruction& instr) {
  if (!instr.extra) {
    instr.extra = std::make_unique<ExtraAttributes>();
  }
  return *instr.extra;
}

bool parse_bool(Lexer& lex, std::string_view key) {
  const uint32_t at = lex.offset();
  const std::string_view word = lex.name();
  if (word == "true") {
    return true;
  }
  if (word != "false") {
    lex.fail_at(at, "expected true or false for " + std::string(key));
  }
  return false;
}

void add_call(Lexer& lex, std::string_view key, CallRole role, InstructionId id,
              ComputationId computation, std::vector<PendingCall>& calls) {
  const std::string_view name = lex.expect_name("a computation name for ", key);
  calls.push_back({computation, id, role, name});
}

void add_call_list(Lexer& lex, std::string_view key, CallRole role, InstructionId id,
                   ComputationId computation, std::vector<PendingCall>& calls) {
  if (lex.peek() != '{') {
    add_call(lex, key, role, id, computation, calls);
    return;
  }
  lex.expect('{', "");
  if (lex.consume('}')) {
    return;
  }
  do {
    add_call(lex, key, role, id, computation, calls);
  } while (lex.consume(','));
  lex.expect('}', "to close the list of ", key);
}

void parse_metadata(Lexer& lex, Instruction& instr) {
  lex.expect('{', "to open metadata");
  while (!lex.consume('}')) {
    const std::string_view key = lex.expect_name("a metadata field or '}' to close metadata");
    lex.expect('=', "after metadata field ", key);
    if (key == "op_name") {
      instr.op_name = lex.quoted_string("metadata op_name");
    } else {
      lex.raw_value("metadata");
    }
    lex.consume(',');
  }
}

}  // namespace

std::vector<int64_t> parse_int_list(Lexer& lex, std::string_view what) {
  std::vector<int64_t> out;
  lex.expect('{', "to open ", what);
  if (lex.consume('}')) {
    return out;
  }
  do {
    out.push_back(lex.expect_integer("an integer in ", what));
  } while (lex.consume(','));
  lex.expect('}', "to close ", what);
  return out;
}

void parse_attribute(Lexer& lex, std::string_view key, Instruction& instr, InstructionId id,
                     ComputationId computation, std::vector<PendingCall>& calls) {
  if (key == "metadata") {
    parse_metadata(lex, instr);
  } else if (key == "dimensions") {
    instr.dimensions = parse_int_list(lex, key);
  } else if (key == "index") {
    instr.index = lex.expect_integer("a tuple index");
  } else if (key == "channel_id") {
    instr.channel_id = lex.expect_integer("a channel id");
  } else if (key == "use_global_device_ids") {
    instr.use_global_device_ids = parse_bool(lex, key);
  } else if (key == "constrain_layout") {
    instr.constrain_layout = parse_bool(lex, key);
  } else if (key == "direction") {
    instr.direction = lex.expect_name("a comparison direction");
  } else if (key == "kind") {
    instr.fusion_kind = lex.expect_name("a fusion kind");
  } else if (key == "backend_config") {
    instr.backend_config = lex.raw_value(key);
  } else if (key == "to_apply") {
    add_call(lex, key, CallRole::kToApply, id, computation, calls);
  } else if (key == "body") {
    add_call(lex, key, CallRole::kBody, id, computation, calls);
  } else if (key == "condition") {
    add_call(lex, key, CallRole::kCondition, id, computation, calls);
  } else if (key == "true_computation") {
    add_call(lex, key, CallRole::kTrueComputation, id, computation, calls);
  } else if (key == "false_computation") {
    add_call(lex, key, CallRole::kFalseComputation, id, computation, calls);
  } else if (key == "calls") {
    add_call_list(lex, key, CallRole::kCalls, id, computation, calls);
  } else if (key == "branch_computations") {
    add_call_list(lex, key, CallRole::kBranch, id, computation, calls);
  } else if (key == "sharding" || key == "frontend_attributes" || key == "statistics" ||
             key == "result_accuracy" || key == "origin") {
    lex.raw_value(key);  // skipped: nothing podsim computes depends on them
  } else if (key == "lhs_contracting_dims" || key == "rhs_contracting_dims" ||
             key == "lhs_batch_dims" || key == "rhs_batch_dims") {
    ExtraAttributes& e = extra(instr);
    if (!e.dot) {
      e.dot.emplace();
    }
    std::vector<int64_t> dims = parse_int_list(lex, key);
    (key[0] == 'l' ? (key[4] == 'c' ? e.dot->lhs_contracting : e.dot->lhs_batch)
                   : (key[4] == 'c' ? e.dot->rhs_contracting : e.dot->rhs_batch)) = std::move(dims);
  } else if (key == "window") {
    ExtraAttributes& e = extra(instr);
    e.window = parse_window(lex);
    e.has_window = true;
  } else if (key == "dim_labels") {
    extra(instr).dim_labels = parse_dim_labels(lex);
  } else if (key == "feature_group_count" || key == "batch_group_count") {
    const int64_t n = lex.expect_integer("a group count");
    if (n < 1) {
      lex.fail(std::string(key) + " must be >= 1, got " + std::to_string(n));
    }
    (key[0] == 'f' ? extra(instr).feature_group_count : extra(instr).batch_group_count) = n;
  } else if (key == "replica_groups") {
    extra(instr).replica_groups = parse_replica_groups(lex);
  } else if (key == "source_target_pairs") {
    extra(instr).source_target_pairs = parse_source_target_pairs(lex);
  } else if (key == "slice") {
    extra(instr).slice = parse_slice(lex);
  } else if (key == "dynamic_slice_sizes") {
    extra(instr).dynamic_slice_sizes = parse_int_list(lex, key);
  } else if (key == "custom_call_target") {
    extra(instr).custom_call_target = lex.quoted_string(key);
  } else if (key == "api_version") {
    extra(instr).api_version = lex.expect_name("an API version");
  } else if (key == "padding") {
    extra(instr).padding = lex.raw_value(key);
  } else if (key == "control-predecessors") {
    ExtraAttributes& e = extra(instr);
    lex.expect('{', "to open control-predecessors");
    if (!lex.consume('}')) {
      do {
        e.control_predecessor_names.push_back(lex.expect_name("an instruction name"));
      } while (lex.consume(','));
      lex.expect('}', "to close control-predecessors");
    }
  } else {
    const std::string_view value = lex.raw_value(key);
    if (value.empty()) {
      lex.fail("expected a value for attribute " + std::string(key));
    }
    extra(instr).unknown.push_back({key, value});
  }
}

}  // namespace podsim::hlo::internal
