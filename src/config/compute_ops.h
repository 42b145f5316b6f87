// The compute operations a chip runs, as plain values: what a workload's
// operation list names (workload.proto, message Compute) and what the serving
// lowering emits. One definition, shared by config (which loads and validates
// them) and chip (ops.h, which turns them into work: FLOPs, HBM bytes, VMEM;
// compute_model.h turns work into time).
//
// The cost formulas are written next to each struct; chip/ops.h holds the
// constants they name (kVmemPanel = 128, the MXU width; kStreamBufferBytes =
// 4 MiB; kSoftmaxFlopsPerScore = 5) and the conventions they share:
//  - bytes(n, t) = the bytes of n elements of dtype t, rounded up to a whole
//    byte (int4 packs two elements to a byte);
//  - every operand crosses HBM exactly once.
//
// Preconditions (the workload loader checks them; chip asserts them): every
// size >= 1 except where a field says 0 is allowed; attention heads a
// multiple of kv_heads; causal attention with q_len <= kv_len.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <variant>

#include "config/dtype.h"

namespace podsim::config {

// `batch` independent products C[b] = A[b] (m x k, activations) x W[b]
// (k x n, weights), accumulated in `acc` and written in the activations'
// dtype. A linear layer over T tokens is batch 1, m = T; experts of a
// mixture are batch = experts.
//   FLOPs (MXU) = 2 * batch * m * k * n
//   read  = batch * (bytes(m*k, act) + bytes(k*n, weight)), the weights
//           omitted when weights_resident (already in VMEM)
//   write = batch * bytes(m*n, act)
//   VMEM  = the smaller operand resident + a double-buffered kVmemPanel-wide
//           panel of the other + one accumulator panel in `acc`:
//           A <= W: A + 2*bytes(k*P, weight) + bytes(m*P, acc)
//           A >  W: W + 2*bytes(P*k, act)    + bytes(P*n, acc)
//           (weights_resident always keeps W). One batch item at a time.
struct Matmul {
  uint64_t batch = 1;
  uint64_t m = 0;
  uint64_t k = 0;
  uint64_t n = 0;
  DType act = DType::kBf16;
  DType weight = DType::kBf16;
  DType acc = DType::kFp32;
  bool weights_resident = false;

  friend bool operator==(const Matmul&, const Matmul&) = default;
};

enum class AttentionPhase : uint8_t { kPrefill, kDecode };

// How --compute tensorcore maps an attention kernel onto the units
// (docs/tensorcore.md): kAuto tries the KV cache stationary in the matrix
// units, the queries stationary, and the vector unit alone, and keeps the
// fastest; the others force one (sharding.attention_mapping). The other
// compute models have one fixed mapping and refuse a forced one.
enum class AttentionMapping : uint8_t { kAuto, kCacheStationary, kQueriesStationary, kVectorUnit };

// "auto", "cache-stationary", "queries-stationary", "vector-unit".
constexpr std::string_view to_string(AttentionMapping m) {
  switch (m) {
    case AttentionMapping::kCacheStationary:
      return "cache-stationary";
    case AttentionMapping::kQueriesStationary:
      return "queries-stationary";
    case AttentionMapping::kVectorUnit:
      return "vector-unit";
    case AttentionMapping::kAuto:
      break;
  }
  return "auto";
}

// Scaled dot-product attention of q_len new queries per sequence against
// kv_len cached keys and values, `heads` query heads sharing `kv_heads` KV
// heads (grouped-query attention; g = heads / kv_heads), flash-style (scores
// never reach HBM). The phase does not change the formulas (decode is
// q_len = 1, or a few with speculation); it names the op for tables and
// reports. The queries are the last q_len of the kv_len positions, so with
// `causal` query i (0-based) sees kv_len - q_len + i + 1 keys:
//   pairs = causal ? q_len * (kv_len - q_len) + q_len * (q_len + 1) / 2
//                  : q_len * kv_len
// (a causal prefill with q_len = kv_len = L gives L(L+1)/2, just over half).
//   FLOPs (MXU)    = 4 * batch * heads * pairs * head_dim  (QK^T and PV)
//   FLOPs (vector) = kSoftmaxFlopsPerScore * batch * heads * pairs
//   read  = bytes(batch*q_len*heads*head_dim, act)             (Q)
//         + 2 * bytes(batch*kv_len*kv_heads*head_dim, kv)      (K and V)
//   write = bytes(batch*q_len*heads*head_dim, act)             (output)
// Appending the new tokens' K and V to the cache is not part of this op.
//   VMEM (one flash block, Tq = min(q_len*g, P), Tk = min(kv_len, P)):
//     bytes(Tq*head_dim, act) + 4*bytes(Tk*head_dim, kv) (K, V double-
//     buffered) + 4*Tq*Tk (fp32 scores) + 4*Tq*head_dim (fp32 output
//     accumulator) + 8*Tq (running max and sum).
// Multi-head latent attention's absorbed decode (workload/README.md) scores
// with one width and reads values of another, the values being the first
// v_head_dim elements of each cached key. With dv = v_head_dim (0: head_dim)
// the formulas above become, QK^T over head_dim and PV over dv:
//   FLOPs (MXU) = 2 * batch * heads * pairs * (head_dim + dv)
//   read  = Q + bytes(batch*kv_len*kv_heads*head_dim, kv) (K)
//         + (values_in_keys ? 0 : bytes(batch*kv_len*kv_heads*dv, kv)) (V)
//   write = bytes(batch*q_len*heads*dv, act)
//   VMEM  = bytes(Tq*head_dim, act) + 2*bytes(Tk*head_dim, kv)
//           + (values_in_keys ? 0 : 2*bytes(Tk*dv, kv)) + 4*Tq*Tk + 4*Tq*dv + 8*Tq
// Measured tables key the op by head_dim only (chip/table_key.h).
struct Attention {
  AttentionPhase phase = AttentionPhase::kPrefill;
  uint64_t batch = 1;
  uint64_t q_len = 0;
  uint64_t kv_len = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  DType act = DType::kBf16;
  DType kv = DType::kBf16;
  bool causal = true;
  uint64_t v_head_dim = 0;                             // value (and output) width; 0: head_dim
  bool values_in_keys = false;                         // V is a prefix of each cached K, read once
  AttentionMapping mapping = AttentionMapping::kAuto;  // --compute tensorcore only

  uint64_t value_dim() const { return v_head_dim == 0 ? head_dim : v_head_dim; }

  friend bool operator==(const Attention&, const Attention&) = default;
};

// Elementwise or other vector work: `elements` outputs, each costing
// flops_per_element (0 allowed: a cast or a layout change), reading bytes_in
// and writing bytes_out in total (not per element; broadcasts and mixed
// dtypes are the caller's arithmetic).
//   FLOPs (vector) = elements * flops_per_element
//   read = bytes_in, write = bytes_out
//   VMEM = min(bytes_in + bytes_out, kStreamBufferBytes)
struct Elementwise {
  uint64_t elements = 0;
  uint32_t flops_per_element = 1;
  uint64_t bytes_in = 0;
  uint64_t bytes_out = 0;

  friend bool operator==(const Elementwise&, const Elementwise&) = default;
};

enum class NormKind : uint8_t { kRms, kLayer };

// RMS or layer norm over `rows` rows of `width`, with a learned scale (and a
// bias for layer norm) of `width` elements, all in `dtype`.
//   FLOPs (vector) = rows * width * (4 for RMS: square, sum, scale, gamma;
//                    7 for layer: sum, subtract mean, square, sum, scale,
//                    gamma, beta)
//   read  = bytes(rows*width, dtype) + (1 or 2) * bytes(width, dtype)
//   write = bytes(rows*width, dtype)
//   VMEM  = min(read + write, kStreamBufferBytes)
struct Norm {
  NormKind kind = NormKind::kRms;
  uint64_t rows = 0;
  uint64_t width = 0;
  DType dtype = DType::kBf16;

  friend bool operator==(const Norm&, const Norm&) = default;
};

// Sums `elements` values of `dtype` down to `outputs` values (1: a full
// reduction; `rows` for a row-wise one).
//   FLOPs (vector) = elements (one add each)
//   read = bytes(elements, dtype), write = bytes(outputs, dtype)
//   VMEM = min(read + write, kStreamBufferBytes)
struct Reduction {
  uint64_t elements = 0;
  uint64_t outputs = 1;
  DType dtype = DType::kBf16;

  friend bool operator==(const Reduction&, const Reduction&) = default;
};

// Gathers `tokens` rows of `width` from a vocab x width table. Only the
// gathered rows are read; vocab does not change the cost (it is carried for
// capacity checks).
//   FLOPs = 0
//   read  = bytes(tokens*width, dtype) + 4 * tokens (int32 token ids)
//   write = bytes(tokens*width, dtype)
//   VMEM  = min(read + write, kStreamBufferBytes)
struct Embedding {
  uint64_t tokens = 0;
  uint64_t width = 0;
  uint64_t vocab = 0;
  DType dtype = DType::kBf16;

  friend bool operator==(const Embedding&, const Embedding&) = default;
};

// An HBM-to-HBM copy by DMA: read = write = bytes, no FLOPs, no VMEM.
struct Copy {
  uint64_t bytes = 0;

  friend bool operator==(const Copy&, const Copy&) = default;
};

using ComputeOp = std::variant<Matmul, Attention, Elementwise, Norm, Reduction, Embedding, Copy>;

// "matmul", "attention", "elementwise", "norm", "reduction", "embedding",
// "copy": the op as workload files and reports name it.
constexpr std::string_view kind_name(const ComputeOp& op) {
  constexpr std::array<std::string_view, std::variant_size_v<ComputeOp>> kNames = {
      "matmul", "attention", "elementwise", "norm", "reduction", "embedding", "copy"};
  return kNames[op.index()];
}

}  // namespace podsim::config
