// Reading HLO text: the header, computations, instructions, shapes, layouts,
// comments, constants and every typed attribute (tests/hlo/data/).
#include "hlo/parser.h"

#include <gtest/gtest.h>

#include "hlo_test_support.h"
#include "shipped.h"

namespace podsim::hlo {
namespace {

using test::comp;
using test::data_module;
using test::instr;

TEST(HloParser, ReadsTheModuleHeader) {
  const Module m = data_module("constructs.hlo");
  EXPECT_EQ(m.name, "jit_step.v2-x");
  EXPECT_EQ(m.replica_count, 2);
  EXPECT_EQ(m.num_partitions, 4);
  EXPECT_FALSE(m.is_scheduled);
  ASSERT_TRUE(m.entry_computation_layout.has_value());
  ASSERT_EQ(m.entry_computation_layout->parameters.size(), 3u);
  EXPECT_EQ(to_string(m.entry_computation_layout->parameters[1]), "bf16[4]");
  EXPECT_EQ(to_string(m.entry_computation_layout->result), "(f32[8,128], ())");
  EXPECT_EQ(m.entry_computation_layout_text.substr(0, 2), "{(");
  // Skipped structurally but kept as raw text.
  ASSERT_EQ(m.header_attributes.size(), 3u);
  EXPECT_EQ(m.header_attributes[0].key, "input_output_alias");
  EXPECT_EQ(m.header_attributes[0].value, "{ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }");
  EXPECT_EQ(m.header_attributes[2].key, "frontend_attributes");
}

TEST(HloParser, ReadsComputationsAndNames) {
  const Module m = data_module("constructs.hlo");
  ASSERT_EQ(m.computations.size(), 3u);
  EXPECT_EQ(m.computations[0].name, "add.clone-1");
  EXPECT_EQ(m.computations[1].name, "fused_computation.3");  // no '%'
  EXPECT_EQ(m.entry_computation().name, "main.42");
  EXPECT_TRUE(m.entry_computation().is_entry);
  EXPECT_EQ(m.find("add.clone-1"), 0);
  EXPECT_EQ(m.find("nope"), kNone);
  // ROOT marked, and by default the last instruction.
  EXPECT_EQ(m.computations[0].root_instruction().name, "sum");
  EXPECT_EQ(m.entry_computation().root_instruction().name, "out");
  // Positions: %sum is on line 8 of the file, after "  ROOT ".
  const SourcePosition at = m.position(instr(m.computations[0], "sum").offset);
  EXPECT_EQ(at.line, 8);
  EXPECT_EQ(at.column, 8);
}

TEST(HloParser, ReadsOperandsWithAndWithoutInlineShapes) {
  const Module m = data_module("constructs.hlo");
  const Computation& add = m.computations[0];
  const Instruction& sum = instr(add, "sum");
  EXPECT_EQ(sum.opcode, Opcode::kAdd);
  ASSERT_EQ(sum.operands.size(), 2u);
  EXPECT_EQ(add.instructions[static_cast<size_t>(sum.operands[0])].name, "x.1");
  EXPECT_EQ(add.instructions[static_cast<size_t>(sum.operands[1])].name, "y.2");
  const Computation& fused = comp(m, "fused_computation.3");
  EXPECT_EQ(instr(fused, "neg").operands, std::vector<InstructionId>{0});
  EXPECT_EQ(instr(add, "y.2").parameter_number, 1);
}

TEST(HloParser, ReadsShapesLayoutsAndDynamicDims) {
  const Module m = data_module("constructs.hlo");
  const Computation& e = m.entry_computation();
  EXPECT_EQ(to_string(instr(e, "a").shape), "f32[8,128]");  // tiled layout dropped
  EXPECT_EQ(to_string(instr(e, "b").shape), "bf16[4]");
  const Shape& dyn = instr(e, "dyn").shape;
  EXPECT_EQ(to_string(dyn), "f32[<=8,?]");
  EXPECT_EQ(dyn.dynamic_dims, 3u);
  EXPECT_EQ(dyn.dims[1], kUnboundedDim);
  EXPECT_EQ(to_string(instr(e, "nested").shape), "(f32[], (s4[3], (pred[2], u4[5])), ())");
  EXPECT_EQ(to_string(instr(e, "t").shape), "token[]");
  const Shape& types = instr(e, "all-types").shape;
  ASSERT_EQ(types.elements.size(), 23u);
  EXPECT_EQ(types.elements[9].type, PrimitiveType::kF8E4M3FN);
  EXPECT_EQ(types.elements[10].type, PrimitiveType::kF8E5M2);
  EXPECT_EQ(types.elements[22].type, PrimitiveType::kOpaque);
  EXPECT_TRUE(instr(e, "empty").shape.is_tuple());
  EXPECT_TRUE(instr(e, "empty").shape.elements.empty());
}

TEST(HloParser, KeepsConstantValues) {
  const Module m = data_module("constructs.hlo");
  const Computation& e = m.entry_computation();
  const Literal& k12 = *instr(e, "k12").extra->literal;
  EXPECT_TRUE(k12.is_scalar && k12.is_integer);
  EXPECT_EQ(k12.integer, 12);
  const Literal& kneg = *instr(e, "kneg").extra->literal;
  EXPECT_TRUE(kneg.is_scalar && !kneg.is_integer);
  EXPECT_LT(kneg.real, -1e308);
  const Literal& kvec = *instr(e, "kvec").extra->literal;
  EXPECT_FALSE(kvec.is_scalar);
  EXPECT_EQ(kvec.text, "{1, 2}");
  EXPECT_EQ(instr(e, "ktrue").extra->literal->integer, 1);
  EXPECT_DOUBLE_EQ(instr(e, "kreal").extra->literal->real, 0.25);
}

TEST(HloParser, ReadsTypedAttributes) {
  const Module m = data_module("constructs.hlo");
  const Computation& e = m.entry_computation();
  const Instruction& a = instr(e, "a");
  EXPECT_EQ(a.op_name, "a");
  EXPECT_EQ(a.extra, nullptr);  // sharding skipped: nothing kept
  const Instruction& fusion = instr(e, "fusion.3");
  EXPECT_EQ(fusion.fusion_kind, "kLoop");
  EXPECT_EQ(fusion.calls, std::vector<ComputationId>{m.find("fused_computation.3")});
  EXPECT_EQ(fusion.op_name, "jit(step)/neg");
  const Instruction& ar = instr(e, "ar");
  EXPECT_EQ(ar.channel_id, 7);
  EXPECT_EQ(ar.use_global_device_ids, true);
  EXPECT_FALSE(ar.constrain_layout);
  EXPECT_EQ(ar.to_apply, m.find("add.clone-1"));
  ASSERT_TRUE(ar.extra->replica_groups.has_value());
  EXPECT_EQ(ar.extra->replica_groups->explicit_groups,
            (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
  ASSERT_EQ(ar.extra->unknown.size(), 1u);  // frontend_attributes skipped, mystery kept
  EXPECT_EQ(ar.extra->unknown[0].key, "mystery_attr");
  EXPECT_EQ(ar.extra->unknown[0].value, "{a={b}, c=\"}\"}");
  EXPECT_EQ(instr(e, "cmp").direction, "LT");
  EXPECT_EQ(instr(e, "gte").index, 0);
  EXPECT_EQ(instr(e, "nested2").extra->control_predecessors,
            std::vector<InstructionId>{e.find("cmp")});
  const auto& slice = instr(e, "sl").extra->slice;
  ASSERT_EQ(slice.size(), 2u);
  EXPECT_EQ(slice[0].limit, 8);
  EXPECT_EQ(slice[0].stride, 2);
  EXPECT_EQ(slice[1].stride, 1);
  EXPECT_EQ(instr(e, "ds").extra->dynamic_slice_sizes, (std::vector<int64_t>{2, 128}));
  EXPECT_EQ(instr(e, "pad").extra->padding, "1_1x0_0");
  const Instruction& dyn = instr(e, "dyn");
  EXPECT_EQ(dyn.extra->custom_call_target, "Pad\\\"ded");  // escapes as written
  EXPECT_EQ(dyn.extra->api_version, "API_VERSION_TYPED_FFI");
  EXPECT_EQ(dyn.backend_config, "{attn_heads = 32 : i64, mode = \"x,y\"}");
}

TEST(HloParser, ReadsCallsBranchesAndContractions) {
  const Module m = data_module("contractions.hlo");
  const Computation& e = m.entry_computation();
  EXPECT_EQ(instr(e, "cond2").true_computation, m.find("branch_a"));
  EXPECT_EQ(instr(e, "cond2").false_computation, m.find("branch_b"));
  EXPECT_EQ(instr(e, "condn").branch_computations,
            (std::vector<ComputationId>{m.find("branch_a"), m.find("branch_b")}));
  EXPECT_EQ(instr(e, "called").to_apply, m.find("callee"));
  EXPECT_EQ(called_computations(instr(e, "cond2")),
            (std::vector<ComputationId>{m.find("branch_a"), m.find("branch_b")}));
  EXPECT_EQ(e.operand(instr(e, "dot"), 1).name, "rhs");
  EXPECT_EQ(m.computation(m.find("callee")).name, "callee");
  // A computation with no signature, callees after their caller.
  EXPECT_EQ(instr(e, "red").to_apply, m.find("add.1"));
  const DotDims& dot = *instr(e, "dot").extra->dot;
  EXPECT_EQ(dot.lhs_batch, std::vector<int64_t>{0});
  EXPECT_EQ(dot.lhs_contracting, std::vector<int64_t>{2});
  EXPECT_EQ(dot.rhs_contracting, std::vector<int64_t>{1});
  const ExtraAttributes& conv = *instr(e, "conv").extra;
  ASSERT_EQ(conv.window.size(), 2u);
  EXPECT_EQ(conv.window[0].size, 3);
  EXPECT_EQ(conv.window[1].pad_low, 1);
  EXPECT_EQ(conv.window[1].pad_high, 1);
  const ConvDimLabels& labels = *conv.dim_labels;
  EXPECT_EQ(labels.input_batch, 0);
  EXPECT_EQ(labels.input_feature, 3);
  EXPECT_EQ(labels.kernel_spatial, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(labels.kernel_input_feature, 2);
  EXPECT_EQ(labels.kernel_output_feature, 3);
  EXPECT_EQ(instr(e, "gconv").extra->feature_group_count, 4);
  EXPECT_EQ(instr(e, "cp").extra->source_target_pairs,
            (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}}));
}

TEST(HloParser, ReadsAScheduledModule) {
  const Module m = data_module("scheduled_async.hlo");
  EXPECT_TRUE(m.is_scheduled);
  EXPECT_EQ(m.num_partitions, 8);
  const Computation& e = m.entry_computation();
  EXPECT_EQ(instr(e, "rss").calls, std::vector<ComputationId>{m.find("wrapped_reduce_scatter")});
  const ReplicaGroups& g = *instr(e, "ars").extra->replica_groups;
  EXPECT_TRUE(g.iota);
  EXPECT_EQ(g.group_count, 2);
  EXPECT_EQ(g.group_size, 4);
  EXPECT_EQ(g.reshape_dims, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(g.transpose_perm, (std::vector<int64_t>{1, 0}));
  // Unknown attribute kept raw; the schedule is the text order.
  EXPECT_EQ(instr(e, "snd").extra->unknown[0].key, "is_host_transfer");
  EXPECT_EQ(e.instructions[1].name, "ars");
}

TEST(HloParser, ReadsTheRealLlamaExcerpt) {
  // Copied lines of OpenXLA's hlo_llama3_8b_cp_bf16_1x4.hlo (Apache-2.0).
  const Module m = data_module("llama3_8b_excerpt.hlo");
  EXPECT_EQ(m.name, "jit_train_step");
  EXPECT_EQ(m.num_partitions, 4);
  EXPECT_EQ(m.entry_computation_layout->parameters.size(), 6u);
  const Computation& e = m.entry_computation();
  const Instruction& attn = instr(e, "te_fused_attn_forward_ffi.10");
  EXPECT_EQ(attn.opcode, Opcode::kCustomCall);
  EXPECT_EQ(attn.extra->custom_call_target, "te_fused_attn_forward_ffi");
  EXPECT_EQ(attn.operands.size(), 13u);
  EXPECT_EQ(attn.backend_config.substr(0, 25), "{attn_heads = 32 : i64, b");
  EXPECT_EQ(attn.extra->unknown[0].key, "operand_layout_constraints");
  const Instruction& ar = instr(e, "all-reduce");
  EXPECT_EQ(ar.channel_id, 19);
  EXPECT_TRUE(ar.extra->replica_groups->iota);
  EXPECT_EQ(expand_groups(*ar.extra->replica_groups),
            (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}}));
  const Instruction& rw = instr(e, "reduce_window_sum.1");
  ASSERT_EQ(rw.extra->window.size(), 1u);
  EXPECT_EQ(rw.extra->window[0].size, 2);
  EXPECT_EQ(rw.extra->window[0].pad_low, 1);
  EXPECT_EQ(rw.extra->window[0].pad_high, 0);
  EXPECT_EQ(instr(e, "constant.112").extra->literal->text, "{}");
  EXPECT_EQ(instr(comp(m, "region_1.6._custom_call_lowering_rule"), "arg_empty_tuple.1")
                .shape.elements.size(),
            0u);
}

TEST(HloParser, LoadsAFileAndNamesItInErrors) {
  const auto path = podsim::testing::source_dir() / "tests/hlo/data/while_loops.hlo";
  const Module m = load_module(path);
  EXPECT_EQ(m.file(), path.string());
  EXPECT_EQ(m.name, "loops");
  try {
    load_module("/nonexistent/x.hlo");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/x.hlo");
    EXPECT_EQ(e.line(), 0);
  }
}

}  // namespace
}  // namespace podsim::hlo
