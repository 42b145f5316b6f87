// How an op's MXU work maps onto weight-stationary matrix units, shared by the
// roofline (for padding) and the systolic model (for cycles), so the two
// agree on shapes.
//
// Weight-stationary dataflow: a k x n operand (the weights) is loaded into
// the arrays, `rows` along k and `columns` along n; the m rows of the other
// operand (the activations) stream through, one row per cycle.
//  - Matmul: one pass, exactly its (batch, m, k, n).
//  - Attention, per sequence and KV head, with g = heads / kv_heads query
//    heads stacked into the streamed rows (m = q_len * g):
//      scores  S = Q K^T: stationary K^T, k = head_dim, n = kv_len;
//      context O = P V:   stationary V,   k = kv_len,   n = head_dim;
//    batch = batch * kv_heads for both. Causal masking skips the masked
//    blocks: useful_fraction = pairs / (q_len * kv_len) of each pass's MACs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "chip/ops.h"

namespace podsim::chip {

struct MxuPass {
  uint64_t batch = 1;
  uint64_t m = 0;                // streamed rows
  uint64_t k = 0;                // stationary rows (along the array's rows)
  uint64_t n = 0;                // stationary columns (along the array's columns)
  double useful_fraction = 1.0;  // of batch*m*k*n MACs; < 1 only for causal attention
  uint64_t hbm_bytes = 0;        // HBM bytes the pass moves (read and write)
  Rate rate = Rate::kBf16;

  double useful_macs() const {
    return static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(k) *
           static_cast<double>(n) * useful_fraction;
  }
};

// At most two passes; vector-only ops have none.
struct MxuPasses {
  std::array<MxuPass, 2> pass{};
  size_t count = 0;

  const MxuPass* begin() const { return pass.data(); }
  const MxuPass* end() const { return pass.data() + count; }
};

// O(1), allocation-free. The passes' hbm_bytes add up to work(op).hbm_bytes():
// a matmul's pass moves all of it; attention's scores pass reads Q and K, its
// context pass reads V and writes the output.
MxuPasses mxu_passes(const Op& op);

}  // namespace podsim::chip
