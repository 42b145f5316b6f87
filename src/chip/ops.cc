#include "chip/ops.h"

#include <algorithm>
#include <cassert>
#include <initializer_list>
#include <stdexcept>

namespace podsim::chip {
namespace {

// Sizes multiplied without wrapping. The loader bounds every operand
// (config/internal/compute_validator.h), so an overflow here is a bug in a
// caller that skipped it: std::overflow_error, never a wrapped size.
uint64_t mul(std::initializer_list<uint64_t> factors) {
  uint64_t r = 1;
  for (const uint64_t f : factors) {
    if (__builtin_mul_overflow(r, f, &r))
      throw std::overflow_error("podsim::chip: an operation's size overflows 64 bits");
  }
  return r;
}

uint64_t add(std::initializer_list<uint64_t> terms) {
  uint64_t r = 0;
  for (const uint64_t t : terms) {
    if (__builtin_add_overflow(r, t, &r))
      throw std::overflow_error("podsim::chip: an operation's byte count overflows 64 bits");
  }
  return r;
}

bool is_integer(DType t) {
  return t == DType::kInt8 || t == DType::kInt4;
}

uint64_t streamed_footprint(uint64_t read, uint64_t write) {
  return std::min(add({read, write}), kStreamBufferBytes);
}

OpWork work_of(const Matmul& mm) {
  assert(mm.batch >= 1 && mm.m >= 1 && mm.k >= 1 && mm.n >= 1);
  const uint64_t a = bytes_of(mul({mm.m, mm.k}), mm.act);
  const uint64_t w = bytes_of(mul({mm.k, mm.n}), mm.weight);
  OpWork out;
  out.mxu_flops = 2.0 * static_cast<double>(mm.batch) * static_cast<double>(mm.m) *
                  static_cast<double>(mm.k) * static_cast<double>(mm.n);
  out.hbm_read_bytes = mul({mm.batch, add({a, mm.weights_resident ? 0 : w})});
  out.hbm_write_bytes = mul({mm.batch, bytes_of(mul({mm.m, mm.n}), mm.act)});
  if (a <= w && !mm.weights_resident) {
    out.vmem_bytes = add({a, mul({2, bytes_of(mul({mm.k, kVmemPanel}), mm.weight)}),
                          bytes_of(mul({mm.m, kVmemPanel}), mm.acc)});
  } else {
    out.vmem_bytes = add({w, mul({2, bytes_of(mul({kVmemPanel, mm.k}), mm.act)}),
                          bytes_of(mul({kVmemPanel, mm.n}), mm.acc)});
  }
  out.mxu_rate = matmul_rate(mm.act, mm.weight);
  return out;
}

OpWork work_of(const Attention& at) {
  assert(at.batch >= 1 && at.q_len >= 1 && at.kv_len >= 1 && at.head_dim >= 1);
  assert(at.kv_heads >= 1 && at.heads % at.kv_heads == 0);
  const double score_count = static_cast<double>(at.batch) * static_cast<double>(at.heads) *
                             static_cast<double>(attention_pairs(at));
  const uint64_t dv = at.value_dim();
  const uint64_t q_bytes = bytes_of(mul({at.batch, at.q_len, at.heads, at.head_dim}), at.act);
  const uint64_t out_bytes = bytes_of(mul({at.batch, at.q_len, at.heads, dv}), at.act);
  const uint64_t k_bytes = bytes_of(mul({at.batch, at.kv_len, at.kv_heads, at.head_dim}), at.kv);
  const uint64_t v_bytes =
      at.values_in_keys ? 0 : bytes_of(mul({at.batch, at.kv_len, at.kv_heads, dv}), at.kv);
  const uint64_t group = at.heads / at.kv_heads;
  const uint64_t tq = std::min(mul({at.q_len, group}), kVmemPanel);
  const uint64_t tk = std::min(at.kv_len, kVmemPanel);
  OpWork out;
  out.mxu_flops = 2.0 * score_count * static_cast<double>(at.head_dim + dv);
  out.vector_flops = kSoftmaxFlopsPerScore * score_count;
  out.hbm_read_bytes = add({q_bytes, k_bytes, v_bytes});
  out.hbm_write_bytes = out_bytes;
  out.vmem_bytes = bytes_of(tq * at.head_dim, at.act) + 2 * bytes_of(tk * at.head_dim, at.kv) +
                   (at.values_in_keys ? 0 : 2 * bytes_of(tk * dv, at.kv)) + 4 * tq * tk +
                   4 * tq * dv + 8 * tq;
  out.mxu_rate = matmul_rate(at.act, at.kv);
  return out;
}

OpWork work_of(const Elementwise& e) {
  OpWork out;
  out.vector_flops = static_cast<double>(e.elements) * e.flops_per_element;
  out.hbm_read_bytes = e.bytes_in;
  out.hbm_write_bytes = e.bytes_out;
  out.vmem_bytes = streamed_footprint(e.bytes_in, e.bytes_out);
  return out;
}

OpWork work_of(const Norm& nm) {
  const bool layer = nm.kind == NormKind::kLayer;
  const uint64_t data = bytes_of(mul({nm.rows, nm.width}), nm.dtype);
  OpWork out;
  out.vector_flops =
      static_cast<double>(nm.rows) * static_cast<double>(nm.width) * (layer ? 7.0 : 4.0);
  out.hbm_read_bytes = add({data, mul({layer ? 2u : 1u, bytes_of(nm.width, nm.dtype)})});
  out.hbm_write_bytes = data;
  out.vmem_bytes = streamed_footprint(out.hbm_read_bytes, out.hbm_write_bytes);
  return out;
}

OpWork work_of(const Reduction& r) {
  OpWork out;
  out.vector_flops = static_cast<double>(r.elements);
  out.hbm_read_bytes = bytes_of(r.elements, r.dtype);
  out.hbm_write_bytes = bytes_of(r.outputs, r.dtype);
  out.vmem_bytes = streamed_footprint(out.hbm_read_bytes, out.hbm_write_bytes);
  return out;
}

OpWork work_of(const Embedding& e) {
  const uint64_t rows = bytes_of(mul({e.tokens, e.width}), e.dtype);
  OpWork out;
  out.hbm_read_bytes = add({rows, mul({4, e.tokens})});
  out.hbm_write_bytes = rows;
  out.vmem_bytes = streamed_footprint(out.hbm_read_bytes, out.hbm_write_bytes);
  return out;
}

OpWork work_of(const Copy& c) {
  OpWork out;
  out.hbm_read_bytes = c.bytes;
  out.hbm_write_bytes = c.bytes;
  return out;
}

}  // namespace

Rate matmul_rate(DType act, DType weight) {
  if (is_integer(act) && is_integer(weight))
    return Rate::kInt8;
  if (act == DType::kFp8 && weight == DType::kFp8)
    return Rate::kFp8;
  return Rate::kBf16;
}

uint64_t attention_pairs(const Attention& a) {
  if (!a.causal)
    return mul({a.q_len, a.kv_len});
  assert(a.q_len <= a.kv_len);
  // q (q + 1) / 2 without overflow: halve the even factor first.
  const uint64_t triangle =
      a.q_len % 2 == 0 ? mul({a.q_len / 2, a.q_len + 1}) : mul({a.q_len, (a.q_len + 1) / 2});
  return add({mul({a.q_len, a.kv_len - a.q_len}), triangle});
}

OpWork work(const Op& op) {
  return std::visit([](const auto& o) { return work_of(o); }, op);
}

OpKind kind_of(const Op& op) {
  struct KindOf {
    OpKind operator()(const Matmul&) const { return OpKind::kMatmul; }
    OpKind operator()(const Attention& a) const {
      return a.phase == AttentionPhase::kDecode ? OpKind::kAttentionDecode
                                                : OpKind::kAttentionPrefill;
    }
    OpKind operator()(const Elementwise&) const { return OpKind::kElementwise; }
    OpKind operator()(const Norm& n) const {
      return n.kind == NormKind::kLayer ? OpKind::kLayerNorm : OpKind::kRmsNorm;
    }
    OpKind operator()(const Reduction&) const { return OpKind::kReduction; }
    OpKind operator()(const Embedding&) const { return OpKind::kEmbedding; }
    OpKind operator()(const Copy&) const { return OpKind::kCopy; }
  };
  return std::visit(KindOf{}, op);
}

}  // namespace podsim::chip
