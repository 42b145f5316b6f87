// The operations a chip runs, and the work each one implies.
//
// An Op is a plain value: a std::variant of the structs defined once in
// config/compute_ops.h (workload files name them too) and brought in here
// by using-declarations. work(op) reports its FLOPs, the HBM bytes it reads
// and writes and its on-chip (VMEM) footprint, with the formulas written
// next to each struct there. Every
// compute model (compute_model.h) starts from these numbers, so the models
// differ only in how they turn work into time.
//
// Conventions used by every formula:
//  - bytes(n, t) = the bytes of n elements of dtype t, rounded up to a whole
//    byte (int4 packs two elements to a byte).
//  - Every operand crosses HBM exactly once: the minimum traffic a fused,
//    well-tiled kernel achieves. vmem_bytes is the working set that makes
//    that possible; when it exceeds the chip's VMEM a real kernel re-reads
//    operands, which the models do not charge (callers may flag it).
//  - The VMEM footprint uses panels of kVmemPanel = 128 rows or columns (the
//    MXU width of every published TPU before v6e) and counts double
//    buffering where operands stream.
//
// Preconditions (asserted, not checked): every size >= 1 except where a
// field says 0 is allowed; attention heads a multiple of kv_heads; causal
// attention with q_len <= kv_len.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "config/compute_ops.h"
#include "config/dtype.h"
#include "config/op_table_spec.h"

namespace podsim::chip {

using config::DType;
using OpKind = config::OpTableKind;

inline constexpr uint64_t kVmemPanel = 128;
// Vector work streams through VMEM in double-buffered blocks; its footprint
// is capped at this many bytes (two 1 MiB blocks each of input and output).
inline constexpr uint64_t kStreamBufferBytes = 4ull << 20;

using config::Attention;
using config::AttentionPhase;
using config::Copy;
using config::Elementwise;
using config::Embedding;
using config::Matmul;
using config::Norm;
using config::NormKind;
using config::Reduction;
using Op = config::ComputeOp;

// Max, subtract, exp, sum and rescale per score.
inline constexpr double kSoftmaxFlopsPerScore = 5;

// The peak an op's MXU work runs at. For a matmul (and attention, with the
// KV cache in place of the weights):
//  - int8 or int4 activations AND int8 or int4 weights: kInt8 (no published
//    TPU has a faster int4 rate);
//  - fp8 activations AND fp8 weights: kFp8;
//  - anything else, kBf16: weight-only quantisation (int8/int4 weights with
//    bf16 activations) dequantises into the bf16 path and saves only bytes;
//    fp32 operands take one bf16 pass (XLA's default precision on TPU).
// A chip without the chosen peak (0 in its spec) runs the op at bf16.
enum class Rate : uint8_t { kBf16, kInt8, kFp8 };

Rate matmul_rate(DType act, DType weight);

struct OpWork {
  double mxu_flops = 0;     // on the matrix units
  double vector_flops = 0;  // on the vector unit
  uint64_t hbm_read_bytes = 0;
  uint64_t hbm_write_bytes = 0;
  uint64_t vmem_bytes = 0;
  Rate mxu_rate = Rate::kBf16;  // meaningful when mxu_flops > 0

  double flops() const { return mxu_flops + vector_flops; }
  uint64_t hbm_bytes() const { return hbm_read_bytes + hbm_write_bytes; }
};

// O(1), allocation-free.
OpWork work(const Op& op);

// Bytes of `elements` elements of `dtype`, rounded up to a whole byte.
// Throws std::overflow_error past 2^62 elements (the loader's limits keep
// every size far below: config/internal/compute_validator.h).
constexpr uint64_t bytes_of(uint64_t elements, DType dtype) {
  if (elements > (uint64_t{1} << 62))
    throw std::overflow_error("podsim::chip::bytes_of: " + std::to_string(elements) +
                              " elements overflow 64-bit byte counts");
  switch (dtype) {
    case DType::kFp32:
      return elements * 4;
    case DType::kBf16:
      return elements * 2;
    case DType::kFp8:
    case DType::kInt8:
      return elements;
    case DType::kInt4:
      return elements / 2 + elements % 2;
  }
  return elements * 2;
}

// (query, key) pairs an attention op scores; see Attention.
uint64_t attention_pairs(const Attention& a);

// The table kind of an op (attention splits by phase, norms by kind).
OpKind kind_of(const Op& op);

}  // namespace podsim::chip
