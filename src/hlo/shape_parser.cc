// shape := type '[' [dim {',' dim}] ']' [layout] | '(' [shape {',' shape}] ')'
// dim := int | '<=' int | '?';  layout := '{' ... '}' right after ']' (skipped).
#include <limits>
#include <string>

#include "hlo/parser_internal.h"

namespace podsim::hlo::internal {
namespace {

// Arrays of at most 2^59 elements: 16 bytes an element (c128) still fits
// in int64 bytes, so byte_size() never overflows.
constexpr int64_t kMaxElements = int64_t{1} << 59;

void check_array_size(Lexer& lex, uint32_t start, const Shape& shape) {
  int64_t elements = 1;
  for (const int64_t d : shape.dims) {
    if (d == kUnboundedDim || d == 0) {
      return;  // no size (unbounded) or empty array
    }
    if (elements > kMaxElements / d) {
      lex.fail_at(start, "shape " + to_string(shape) +
                             " has more elements than fit in int64 bytes (limit 2^59)");
    }
    elements *= d;
  }
}

void check_tuple_size(Lexer& lex, uint32_t start, const Shape& shape) {
  if (shape.has_unbounded_dims()) {
    return;
  }
  int64_t sum = 0;
  for (const Shape& e : shape.elements) {
    const int64_t b = *byte_size(e);  // each element already checked
    if (b > std::numeric_limits<int64_t>::max() - sum) {
      lex.fail_at(start, "tuple shape's byte size does not fit in int64");
    }
    sum += b;
  }
}

}  // namespace

bool at_shape(Lexer& lex) {
  const char c = lex.peek();
  if (c == '(') {
    return true;
  }
  if (c == '%') {
    return false;
  }
  const uint32_t start = lex.offset();
  const std::string_view word = lex.name();
  const bool shape =
      !word.empty() && primitive_type_from_name(word).has_value() && lex.peek_raw() == '[';
  lex.seek(start);
  return shape;
}

Shape parse_shape(Lexer& lex, int depth) {
  if (depth >= kMaxShapeDepth) {
    lex.fail("shape nested deeper than " + std::to_string(kMaxShapeDepth) + " levels");
  }
  lex.peek();
  const uint32_t start = lex.offset();
  Shape shape;
  if (lex.consume('(')) {
    shape.type = PrimitiveType::kTuple;
    if (!lex.consume(')')) {
      do {
        shape.elements.push_back(parse_shape(lex, depth + 1));
      } while (lex.consume(','));
      lex.expect(')', "to close the tuple shape");
    }
    check_tuple_size(lex, start, shape);
    return shape;
  }
  if (lex.peek() == '%') {
    lex.fail("expected a shape, found a name");
  }
  const std::string_view word = lex.expect_name("a shape (an element type such as f32, or '(')");
  const std::optional<PrimitiveType> type = primitive_type_from_name(word);
  if (!type) {
    lex.fail_at(start, "expected a shape: '" + std::string(word) + "' is not an element type");
  }
  shape.type = *type;
  if (lex.peek_raw() != '[') {
    if (*type == PrimitiveType::kToken || *type == PrimitiveType::kOpaque) {
      return shape;
    }
    lex.fail("expected '[' after element type " + std::string(word));
  }
  lex.expect('[', "to open the dimensions");
  if (!lex.consume(']')) {
    do {
      if (shape.dims.size() >= static_cast<size_t>(kMaxRank)) {
        lex.fail("shape has more than " + std::to_string(kMaxRank) + " dimensions");
      }
      const uint64_t bit = uint64_t{1} << shape.dims.size();
      if (lex.consume('?')) {
        shape.dims.push_back(kUnboundedDim);
        shape.dynamic_dims |= bit;
        continue;
      }
      if (lex.consume("<=")) {
        shape.dynamic_dims |= bit;
      }
      lex.peek();
      const uint32_t at = lex.offset();
      const int64_t d = lex.expect_integer("a dimension size");
      if (d < 0) {
        lex.fail_at(at, "dimension size must be >= 0, got " + std::to_string(d));
      }
      shape.dims.push_back(d);
    } while (lex.consume(','));
    lex.expect(']', "to close the dimensions");
  }
  check_array_size(lex, start, shape);
  if (lex.peek_raw() == '{') {
    lex.balanced("the layout");  // minor-to-major, tiling, memory space: ignored
  }
  return shape;
}

}  // namespace podsim::hlo::internal
