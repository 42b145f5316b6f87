#include "hlo/shape.h"

#include <array>
#include <utility>

namespace podsim::hlo {
namespace {

struct TypeInfo {
  std::string_view name;
  PrimitiveType type;
  int bits;
};

// Order as in the enum, so kTypes[static_cast<int>(t)] is t's row.
constexpr std::array<TypeInfo, 31> kTypes = {{
    {"pred", PrimitiveType::kPred, 8},
    {"s2", PrimitiveType::kS2, 2},
    {"s4", PrimitiveType::kS4, 4},
    {"s8", PrimitiveType::kS8, 8},
    {"s16", PrimitiveType::kS16, 16},
    {"s32", PrimitiveType::kS32, 32},
    {"s64", PrimitiveType::kS64, 64},
    {"u2", PrimitiveType::kU2, 2},
    {"u4", PrimitiveType::kU4, 4},
    {"u8", PrimitiveType::kU8, 8},
    {"u16", PrimitiveType::kU16, 16},
    {"u32", PrimitiveType::kU32, 32},
    {"u64", PrimitiveType::kU64, 64},
    {"f4e2m1fn", PrimitiveType::kF4E2M1FN, 4},
    {"f8e3m4", PrimitiveType::kF8E3M4, 8},
    {"f8e4m3", PrimitiveType::kF8E4M3, 8},
    {"f8e4m3fn", PrimitiveType::kF8E4M3FN, 8},
    {"f8e4m3b11fnuz", PrimitiveType::kF8E4M3B11FNUZ, 8},
    {"f8e4m3fnuz", PrimitiveType::kF8E4M3FNUZ, 8},
    {"f8e5m2", PrimitiveType::kF8E5M2, 8},
    {"f8e5m2fnuz", PrimitiveType::kF8E5M2FNUZ, 8},
    {"f8e8m0fnu", PrimitiveType::kF8E8M0FNU, 8},
    {"bf16", PrimitiveType::kBF16, 16},
    {"f16", PrimitiveType::kF16, 16},
    {"f32", PrimitiveType::kF32, 32},
    {"f64", PrimitiveType::kF64, 64},
    {"c64", PrimitiveType::kC64, 64},
    {"c128", PrimitiveType::kC128, 128},
    {"token", PrimitiveType::kToken, 0},
    {"opaque", PrimitiveType::kOpaque, 0},
    {"tuple", PrimitiveType::kTuple, 0},
}};

}  // namespace

std::optional<PrimitiveType> primitive_type_from_name(std::string_view name) {
  // Linear over 30 short names: called once per shape, cheaper than hashing.
  for (const TypeInfo& info : kTypes) {
    if (info.name == name && info.type != PrimitiveType::kTuple) {
      return info.type;
    }
  }
  return std::nullopt;
}

std::string_view primitive_type_name(PrimitiveType type) {
  return kTypes[static_cast<size_t>(type)].name;
}

int primitive_type_bits(PrimitiveType type) {
  return kTypes[static_cast<size_t>(type)].bits;
}

bool Shape::has_unbounded_dims() const {
  for (const int64_t d : dims) {
    if (d == kUnboundedDim) {
      return true;
    }
  }
  for (const Shape& e : elements) {
    if (e.has_unbounded_dims()) {
      return true;
    }
  }
  return false;
}

std::optional<int64_t> element_count(const Shape& shape) {
  if (!shape.is_array() || shape.has_unbounded_dims()) {
    return std::nullopt;
  }
  int64_t n = 1;
  for (const int64_t d : shape.dims) {
    n *= d;
  }
  return n;
}

std::optional<int64_t> byte_size(const Shape& shape) {
  if (shape.has_unbounded_dims()) {
    return std::nullopt;
  }
  if (shape.is_tuple()) {
    int64_t sum = 0;
    for (const Shape& e : shape.elements) {
      sum += *byte_size(e);
    }
    return sum;
  }
  if (!shape.is_array()) {
    return 0;
  }
  // elements * bits / 8 rounded up, without forming elements * bits (which
  // may not fit where the byte count does): whole bytes per 8 elements.
  const int64_t n = *element_count(shape);
  const int64_t bits = primitive_type_bits(shape.type);
  return n / 8 * bits + (n % 8 * bits + 7) / 8;
}

std::string to_string(const Shape& shape) {
  std::string out;
  if (shape.is_tuple()) {
    out += '(';
    for (size_t i = 0; i < shape.elements.size(); ++i) {
      if (i > 0) {
        out += ", ";
      }
      out += to_string(shape.elements[i]);
    }
    out += ')';
    return out;
  }
  out += primitive_type_name(shape.type);
  out += '[';
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    const bool dynamic = (shape.dynamic_dims >> i & 1) != 0;
    if (shape.dims[i] == kUnboundedDim) {
      out += '?';
    } else {
      if (dynamic) {
        out += "<=";
      }
      out += std::to_string(shape.dims[i]);
    }
  }
  out += ']';
  return out;
}

}  // namespace podsim::hlo
