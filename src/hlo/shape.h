// HLO shapes: element types, array dimensions (static, bounded dynamic `<=N`
// and unbounded dynamic `?`) and tuples. Layouts (`{1,0:T(8,128)S(1)}`) are
// accepted by the parser and dropped: nothing podsim computes depends on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::hlo {

// Every element type XLA prints (xla_data.proto's PrimitiveType), by its HLO
// text name. kTuple marks a tuple shape; kToken and kOpaque hold no data.
enum class PrimitiveType : uint8_t {
  kPred,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF4E2M1FN,
  kF8E3M4,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E4M3FNUZ,
  kF8E5M2,
  kF8E5M2FNUZ,
  kF8E8M0FNU,
  kBF16,
  kF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kToken,
  kOpaque,
  kTuple,
};

// The type named `name` ("bf16", "f8e4m3fn", "s4"), or nullopt.
std::optional<PrimitiveType> primitive_type_from_name(std::string_view name);
std::string_view primitive_type_name(PrimitiveType type);

// Storage bits of one element as XLA packs arrays: pred is a byte, s4/u4
// half a byte, s2/u2 a quarter; 0 for token, opaque and tuple.
int primitive_type_bits(PrimitiveType type);

// The size of an unbounded dynamic dimension (`?`): no byte size exists.
inline constexpr int64_t kUnboundedDim = -1;

// The most dimensions an array may have (XLA has no limit; real programs use
// fewer than 10) and the deepest tuple nesting the parser accepts.
inline constexpr int kMaxRank = 64;
inline constexpr int kMaxShapeDepth = 64;

struct Shape {
  PrimitiveType type = PrimitiveType::kTuple;
  // Arrays: one size per dimension, major to minor as written; a bounded
  // dynamic dimension `<=8` holds its bound 8, an unbounded `?` kUnboundedDim.
  std::vector<int64_t> dims;
  // Bit i set: dimension i is dynamic (`<=N` or `?`).
  uint64_t dynamic_dims = 0;
  // Tuples: the elements (empty for the empty tuple `()`).
  std::vector<Shape> elements;

  bool is_tuple() const { return type == PrimitiveType::kTuple; }
  bool is_array() const {
    return !is_tuple() && type != PrimitiveType::kToken && type != PrimitiveType::kOpaque;
  }
  int rank() const { return static_cast<int>(dims.size()); }
  bool has_unbounded_dims() const;
};

// Elements of an array (1 for a scalar; bounded dynamic dimensions at their
// bound); nullopt for a tuple, token or opaque, or an unbounded dimension.
// The parser guarantees the product fits in int64.
std::optional<int64_t> element_count(const Shape& shape);

// Bytes of a shape as XLA packs it: an array's elements times their bits,
// rounded up to a whole byte per array; a tuple the sum of its elements
// (no pointer table); token and opaque 0. nullopt when a dimension is
// unbounded. The parser guarantees the sum fits in int64.
std::optional<int64_t> byte_size(const Shape& shape);

// As HLO text without layout: "bf16[8,<=4]", "(f32[], s32[2])".
std::string to_string(const Shape& shape);

}  // namespace podsim::hlo
