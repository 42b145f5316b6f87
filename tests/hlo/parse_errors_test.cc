// Bad HLO text: every error names file, line, column and what was expected;
// hostile inputs (deep nesting, huge sizes) give errors, not crashes.
#include <gtest/gtest.h>

#include <string>

#include "hlo/parser.h"

namespace podsim::hlo {
namespace {

// The error `text` gives, as what() prints it.
std::string error_of(const std::string& text) {
  try {
    parse_module(text, "model.hlo");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

constexpr const char* kHeader = "HloModule m\n";

TEST(HloParseErrors, NameFileLineColumnAndProduction) {
  // Line 4, column 42 is the ',' where ')' or another operand was due... the
  // operand list has "%p %p": the second name is where ')' was expected.
  const std::string text = std::string(kHeader) +
                           "ENTRY %e {\n"
                           "  %p = f32[] parameter(0)\n"
                           "  ROOT %fusion.3 = f32[] add(%p %p)\n"
                           "}\n";
  EXPECT_EQ(error_of(text),
            "model.hlo:4:33: expected ')' to close the operand list of %fusion.3, found '%'");
}

TEST(HloParseErrors, HeaderAndShapes) {
  EXPECT_EQ(error_of("HloMod x"), "model.hlo:1:1: expected 'HloModule' at the start of the module");
  EXPECT_EQ(error_of("HloModule m, num_partitions=0\n"),
            "model.hlo:1:29: num_partitions must be >= 1, got 0");
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  p = f33[2] parameter(0)\n}\n"),
            "model.hlo:3:7: expected a shape: 'f33' is not an element type");
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  p = f32[2 parameter(0)\n}\n"),
            "model.hlo:3:13: expected ']' to close the dimensions, found 'p'");
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  p = f32[-2] parameter(0)\n}\n"),
            "model.hlo:3:11: dimension size must be >= 0, got -2");
}

TEST(HloParseErrors, AttributeValues) {
  const std::string pre = std::string(kHeader) + "ENTRY e {\n  p = f32[8] parameter(0)\n";
  EXPECT_EQ(error_of(pre + "  r = f32[8] all-reduce(p), replica_groups=[2,4]<=[3]\n}\n"),
            "model.hlo:4:51: iota reshape dimensions multiply to 3, not GROUPS*SIZE = 8");
  EXPECT_EQ(error_of(pre + "  r = f32[8] all-reduce(p), replica_groups=[2,4]<=[4,2]T(0,0)\n}\n"),
            "model.hlo:4:57: iota transpose must be a permutation of the reshape dimensions");
  EXPECT_EQ(error_of(pre + "  r = f32[8] convolution(p, p), dim_labels=b01f_01xo->b01f\n}\n"),
            "model.hlo:4:44: bad dim_labels 'b01f_01xo->b01f': expected INPUT_KERNEL->OUTPUT "
            "such as b01f_01io->b01f");
  EXPECT_EQ(error_of(pre + "  r = f32[8] convolution(p, p), window={size=3x3 pad=1_1}\n}\n"),
            "model.hlo:4:54: window field pad has 1 dimensions, expected 2");
  EXPECT_EQ(error_of(pre + "  r = f32[8] all-reduce(p), use_global_device_ids=yes\n}\n"),
            "model.hlo:4:51: expected true or false for use_global_device_ids");
  // A '}' on the next line would close "{unclosed": a '(' cannot be closed by it.
  EXPECT_EQ(error_of(pre + "  r = f32[8] custom-call(p), backend_config=(unclosed\n}\n"),
            "model.hlo:5:1: unbalanced '}' in backend_config");
  EXPECT_EQ(error_of(pre + "  r = f32[8] custom-call(p), backend_config={unclosed\n"),
            "model.hlo:4:45: unterminated '{' in backend_config");
}

TEST(HloParseErrors, SemanticChecks) {
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  ROOT r = f32[] negate(%q)\n}\n"),
            "model.hlo:3:25: operand %q of %r names no instruction in computation %e");
  EXPECT_EQ(error_of(std::string(kHeader) +
                     "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), "
                     "to_apply=%nowhere\n}\n"),
            "model.hlo:4:36: computation %nowhere called by %r names no computation");
  EXPECT_EQ(error_of(std::string(kHeader) +
                     "ENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}\n"),
            "model.hlo:4:3: duplicate instruction name %p in computation %e");
  EXPECT_EQ(error_of(std::string(kHeader) + "c {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "model.hlo:5:1: expected an ENTRY computation: the module has none");
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n}\n"),
            "model.hlo:2:1: computation %e has no instructions");
  EXPECT_EQ(error_of(std::string(kHeader) +
                     "ENTRY e {\n  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] negate(p)\n}\n"),
            "model.hlo:4:8: second ROOT in computation %e (the first is %p)");
  EXPECT_EQ(
      error_of(std::string(kHeader) +
               "c {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=d\n}\n"
               "d {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"
               "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n"),
      "model.hlo:2:1: computation %c calls itself (through %d)");
}

TEST(HloParseErrors, MissingRootTakesTheLastInstruction) {
  const Module m = parse_module(std::string(kHeader) +
                                "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] negate(p)\n}\n");
  EXPECT_EQ(m.entry_computation().root_instruction().name, "q");
}

TEST(HloParseErrors, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(kHeader) + "ENTRY e {\n  p = " + std::string(10000, '(');
  EXPECT_EQ(error_of(deep), "model.hlo:3:71: shape nested deeper than 64 levels");
  // Deep brackets in a skipped attribute: an explicit stack, no recursion.
  const std::string skipped = std::string(kHeader) +
                              "ENTRY e {\n  p = f32[] parameter(0), x=" + std::string(100000, '{') +
                              std::string(100000, '}') + "\n}\n";
  EXPECT_EQ(parse_module(skipped).entry_computation().root_instruction().name, "p");
}

TEST(HloParseErrors, SizesBeyondInt64AreErrors) {
  const std::string pre = std::string(kHeader) + "ENTRY e {\n  p = ";
  EXPECT_EQ(error_of(pre + "f32[4294967296,4294967296] parameter(0)\n}\n"),
            "model.hlo:3:7: shape f32[4294967296,4294967296] has more elements than fit in "
            "int64 bytes (limit 2^59)");
  EXPECT_EQ(error_of(pre + "f32[99999999999999999999] parameter(0)\n}\n"),
            "model.hlo:3:11: integer does not fit in 64 bits");
  // Each element fits; the tuple's sum does not.
  const std::string big = "f32[" + std::to_string(int64_t{1} << 58) + "]";
  EXPECT_EQ(error_of(pre + "(" + big + "," + big + "," + big + "," + big + "," + big + "," + big +
                     "," + big + "," + big + ") parameter(0)\n}\n"),
            "model.hlo:3:7: tuple shape's byte size does not fit in int64");
}

TEST(HloParseErrors, UnterminatedInputs) {
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  p = f32[] parameter(0)\n"),
            "model.hlo:4:1: expected '}' to close computation %e");
  EXPECT_EQ(error_of(std::string(kHeader) + "/* open"), "model.hlo:2:1: unterminated /* comment");
  EXPECT_EQ(error_of(std::string(kHeader) + "ENTRY e {\n  p = f32[] custom-call(), "
                                            "custom_call_target=\"abc\n}\n"),
            "model.hlo:3:47: unterminated string in custom_call_target");
}

}  // namespace
}  // namespace podsim::hlo
