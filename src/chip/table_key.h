// The key under which an op is looked up in a measured table, built by the
// same schema the loader checks rows against (config/op_table_spec.h).
//
// Projection of each op onto its kind's dimensions:
//  - Matmul: batch, m, k, n; dtypes act / weight (acc and weights_resident
//    are not part of the key).
//  - Attention: batch, q_len, kv_len, heads, kv_heads, head_dim, causal;
//    dtypes act / kv; the kind says prefill or decode.
//  - Elementwise: bytes = bytes_in + bytes_out, flops_per_element; no dtype.
//  - Norm: rows, width; dtype (the kind says RMS or layer).
//  - Reduction: elements, outputs; dtype.
//  - Embedding: tokens, width; dtype (vocab does not change the time).
//  - Copy: bytes; no dtype.
// Kinds without a dtype, and kinds with one, store it twice (dtype and
// second_dtype), as the loader does.
#pragma once

#include <array>
#include <cstdint>

#include "chip/ops.h"
#include "config/op_table_spec.h"

namespace podsim::chip {

using TableDims = std::array<uint64_t, config::kMaxOpTableDims>;

struct TableKey {
  OpKind kind = OpKind::kMatmul;
  TableDims dims{};
  DType dtype = DType::kBf16;
  DType second_dtype = DType::kBf16;
};

// O(1), allocation-free.
TableKey table_key(const Op& op);

// The size the table model interpolates in (log time against log size), up
// to a constant factor, which log-log interpolation cancels:
//   matmul: batch*m*k*n (FLOPs); attention_prefill: batch*heads*pairs*
//   head_dim (FLOPs); attention_decode: batch*kv_heads*kv_len*head_dim (the
//   KV bytes that bound it); elementwise and copy: bytes; norms: rows*width;
//   reduction: elements; embedding: tokens*width.
double table_size(OpKind kind, const TableDims& dims);

}  // namespace podsim::chip
