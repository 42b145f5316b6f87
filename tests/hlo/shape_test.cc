// Byte sizes and element counts of shapes, by hand.
#include "hlo/shape.h"

#include <gtest/gtest.h>

#include "hlo/parser.h"
#include "hlo_test_support.h"

namespace podsim::hlo {
namespace {

// The shape of the single parameter of a module written around `shape`.
Shape shape_of(const std::string& shape) {
  const Module m =
      parse_module("HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n");
  return m.entry_computation().root_instruction().shape;
}

TEST(HloShape, ByteSizesAsXlaPacksThem) {
  EXPECT_EQ(byte_size(shape_of("f32[8,128]")), 8 * 128 * 4);
  EXPECT_EQ(byte_size(shape_of("bf16[3]")), 3 * 2);
  EXPECT_EQ(byte_size(shape_of("f32[]")), 4);        // a scalar is one element
  EXPECT_EQ(byte_size(shape_of("pred[5]")), 5);      // a byte each
  EXPECT_EQ(byte_size(shape_of("s4[5]")), 3);        // 5 x 4 bits = 20 bits -> 3 bytes
  EXPECT_EQ(byte_size(shape_of("u4[6]")), 3);        // 24 bits
  EXPECT_EQ(byte_size(shape_of("s2[5]")), 2);        // 10 bits -> 2 bytes
  EXPECT_EQ(byte_size(shape_of("f4e2m1fn[3]")), 2);  // 12 bits -> 2 bytes
  EXPECT_EQ(byte_size(shape_of("f8e4m3fn[7]")), 7);
  EXPECT_EQ(byte_size(shape_of("c128[2]")), 32);
  EXPECT_EQ(byte_size(shape_of("f32[0,5]")), 0);
  EXPECT_EQ(byte_size(shape_of("token[]")), 0);
  // A tuple is the sum of its arrays, each rounded up on its own:
  // s4[3] = 12 bits -> 2 bytes, twice = 4 (not 24 bits -> 3).
  EXPECT_EQ(byte_size(shape_of("(s4[3], s4[3])")), 4);
  EXPECT_EQ(byte_size(shape_of("(f32[2], (bf16[4], ()), pred[])")), 8 + 8 + 1);
  EXPECT_EQ(byte_size(shape_of("()")), 0);
  // Bounded dynamic dims at their bound; unbounded: no size.
  EXPECT_EQ(byte_size(shape_of("f32[<=8,2]")), 8 * 2 * 4);
  EXPECT_EQ(byte_size(shape_of("f32[?,2]")), std::nullopt);
  EXPECT_EQ(byte_size(shape_of("(f32[?], f32[2])")), std::nullopt);
}

TEST(HloShape, ElementCounts) {
  EXPECT_EQ(element_count(shape_of("f32[2,3,4]")), 24);
  EXPECT_EQ(element_count(shape_of("f32[]")), 1);
  EXPECT_EQ(element_count(shape_of("(f32[2])")), std::nullopt);
  EXPECT_EQ(element_count(shape_of("token[]")), std::nullopt);
}

TEST(HloShape, LargestAcceptedArrayStillHasAByteSize) {
  // 2^59 - 1 elements of c128 (16 bytes): just under 2^63 bytes.
  const int64_t n = (int64_t{1} << 59) - 1;
  const Shape s = shape_of("c128[" + std::to_string(n) + "]");
  EXPECT_EQ(byte_size(s), n * 16);
}

TEST(HloShape, TypeNamesRoundTrip) {
  for (int t = 0; t <= static_cast<int>(PrimitiveType::kOpaque); ++t) {
    const auto type = static_cast<PrimitiveType>(t);
    EXPECT_EQ(primitive_type_from_name(primitive_type_name(type)), type);
  }
  EXPECT_EQ(primitive_type_from_name("tuple"), std::nullopt);
  EXPECT_EQ(primitive_type_from_name("f33"), std::nullopt);
}

}  // namespace
}  // namespace podsim::hlo
