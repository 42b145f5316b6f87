// Validated, typed measured-operation table (--op-table FILE): what
// load_op_table_file() (config/op_table_loader.h) produces and the `table`
// compute model (src/chip/table_model.h) consumes.
//
// The schema below — the operation kinds and, per kind, the shape dimensions a
// row names — is the single source of truth for both the loader (which checks
// rows against it) and the chip layer (which builds the same keys from its
// operations). docs/inputs.md ("Operation tables") documents it for users.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/workload_spec.h"
#include "sim/time.h"

namespace podsim::config {

// The kinds of operation a table can time. Dense, starting at 0, so they can
// index arrays and bit masks.
enum class OpTableKind : uint8_t {
  kMatmul,
  kAttentionPrefill,
  kAttentionDecode,
  kElementwise,
  kRmsNorm,
  kLayerNorm,
  kReduction,
  kEmbedding,
  kCopy,
};
inline constexpr size_t kOpTableKindCount = 9;

// One shape dimension of a kind.
struct OpTableDim {
  std::string_view name;
  uint64_t min_value = 1;
  uint64_t max_value = std::numeric_limits<uint64_t>::max();
  // Used when a row leaves the dimension out; nullopt: the row must give it.
  std::optional<uint64_t> default_value;
  // A size dimension: rows differing only in it lie on one curve that the
  // table model interpolates along. Flags and per-element counts are not.
  bool interpolates = true;
};

inline constexpr size_t kMaxOpTableDims = 7;

namespace op_table_schema {
inline constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();
// A size the row must give.
constexpr OpTableDim size(std::string_view name) {
  return {name, 1, kNoMax, std::nullopt, true};
}
// A size that defaults when left out.
constexpr OpTableDim size_or(std::string_view name, uint64_t def) {
  return {name, 1, kNoMax, def, true};
}
// Not interpolated: rows must match it exactly.
constexpr OpTableDim exact(std::string_view name, uint64_t min, uint64_t max,
                           std::optional<uint64_t> def) {
  return {name, min, max, def, false};
}

inline constexpr OpTableDim kMatmul[] = {size_or("batch", 1), size("m"), size("k"), size("n")};
inline constexpr OpTableDim kAttention[] = {
    size_or("batch", 1), size("q_len"),    size("kv_len"),          size("heads"),
    size("kv_heads"),    size("head_dim"), exact("causal", 0, 1, 1)};
inline constexpr OpTableDim kElementwise[] = {size("bytes"),
                                              exact("flops_per_element", 0, kNoMax, std::nullopt)};
inline constexpr OpTableDim kNorm[] = {size("rows"), size("width")};
inline constexpr OpTableDim kReduction[] = {size("elements"), exact("outputs", 1, kNoMax, 1)};
inline constexpr OpTableDim kEmbedding[] = {size("tokens"), size("width")};
inline constexpr OpTableDim kCopy[] = {size("bytes")};
}  // namespace op_table_schema

// The dimensions of `kind`, in key order (OpTableEntry::dims follows it).
constexpr std::span<const OpTableDim> op_table_dims(OpTableKind kind) {
  namespace s = op_table_schema;
  switch (kind) {
    case OpTableKind::kMatmul:
      return s::kMatmul;
    case OpTableKind::kAttentionPrefill:
    case OpTableKind::kAttentionDecode:
      return s::kAttention;
    case OpTableKind::kElementwise:
      return s::kElementwise;
    case OpTableKind::kRmsNorm:
    case OpTableKind::kLayerNorm:
      return s::kNorm;
    case OpTableKind::kReduction:
      return s::kReduction;
    case OpTableKind::kEmbedding:
      return s::kEmbedding;
    case OpTableKind::kCopy:
      return s::kCopy;
  }
  return {};
}

// "matmul", "attention_prefill", ...: as the CSV's kind column spells them.
constexpr std::string_view to_string(OpTableKind kind) {
  switch (kind) {
    case OpTableKind::kMatmul:
      return "matmul";
    case OpTableKind::kAttentionPrefill:
      return "attention_prefill";
    case OpTableKind::kAttentionDecode:
      return "attention_decode";
    case OpTableKind::kElementwise:
      return "elementwise";
    case OpTableKind::kRmsNorm:
      return "rms_norm";
    case OpTableKind::kLayerNorm:
      return "layer_norm";
    case OpTableKind::kReduction:
      return "reduction";
    case OpTableKind::kEmbedding:
      return "embedding";
    case OpTableKind::kCopy:
      return "copy";
  }
  return "?";
}

// Elementwise work and copies have no dtype (their sizes are in bytes): their
// rows leave the dtype cell empty. Every other kind names one.
constexpr bool op_table_kind_has_dtype(OpTableKind kind) {
  return kind != OpTableKind::kElementwise && kind != OpTableKind::kCopy;
}

// Matmul and attention rows may name two dtypes ("bf16/int8": activations,
// then weights or KV cache); other kinds name one.
constexpr bool op_table_kind_has_two_dtypes(OpTableKind kind) {
  return kind == OpTableKind::kMatmul || kind == OpTableKind::kAttentionPrefill ||
         kind == OpTableKind::kAttentionDecode;
}

// One measured row. The key is (kind, dims, dtype, second_dtype); no two rows
// of a table share a key.
struct OpTableEntry {
  OpTableKind kind = OpTableKind::kMatmul;
  // The first op_table_dims(kind).size() values, in schema order (defaults
  // filled in); the rest are 0.
  std::array<uint64_t, kMaxOpTableDims> dims{};
  DType dtype = DType::kBf16;
  // The weights' (matmul) or KV cache's (attention) dtype; equal to `dtype`
  // when the row names one dtype, and for kinds that have only one. Both are
  // bf16 for kinds without a dtype.
  DType second_dtype = DType::kBf16;
  sim::Time time;  // > 0
  int line = 0;    // 1-based line of the row in the source file

  friend bool operator==(const OpTableEntry&, const OpTableEntry&) = default;
};

struct OpTableSpec {
  std::string source_file;
  std::vector<OpTableEntry> entries;  // in file order; never empty once loaded

  friend bool operator==(const OpTableSpec&, const OpTableSpec&) = default;
};

}  // namespace podsim::config
