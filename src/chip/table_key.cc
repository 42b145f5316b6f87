#include "chip/table_key.h"

namespace podsim::chip {
namespace {

// Dimension positions follow config::op_table_schema.
TableKey key_of(const Matmul& mm) {
  return {OpKind::kMatmul, {mm.batch, mm.m, mm.k, mm.n}, mm.act, mm.weight};
}

TableKey key_of(const Attention& a) {
  return {kind_of(a),
          {a.batch, a.q_len, a.kv_len, a.heads, a.kv_heads, a.head_dim, a.causal ? 1u : 0u},
          a.act,
          a.kv};
}

TableKey key_of(const Elementwise& e) {
  return {OpKind::kElementwise, {e.bytes_in + e.bytes_out, e.flops_per_element}};
}

TableKey key_of(const Norm& n) {
  return {kind_of(n), {n.rows, n.width}, n.dtype, n.dtype};
}

TableKey key_of(const Reduction& r) {
  return {OpKind::kReduction, {r.elements, r.outputs}, r.dtype, r.dtype};
}

TableKey key_of(const Embedding& e) {
  return {OpKind::kEmbedding, {e.tokens, e.width}, e.dtype, e.dtype};
}

TableKey key_of(const Copy& c) {
  return {OpKind::kCopy, {c.bytes}};
}

double product(std::initializer_list<uint64_t> xs) {
  double p = 1;
  for (uint64_t x : xs)
    p *= static_cast<double>(x);
  return p;
}

}  // namespace

TableKey table_key(const Op& op) {
  return std::visit([](const auto& o) { return key_of(o); }, op);
}

double table_size(OpKind kind, const TableDims& d) {
  switch (kind) {
    case OpKind::kMatmul:
      return product({d[0], d[1], d[2], d[3]});
    case OpKind::kAttentionPrefill: {
      Attention a;
      a.q_len = d[1];
      a.kv_len = d[2];
      a.causal = d[6] != 0;
      return product({d[0], d[3], attention_pairs(a), d[5]});
    }
    case OpKind::kAttentionDecode:
      return product({d[0], d[4], d[2], d[5]});
    case OpKind::kRmsNorm:
    case OpKind::kLayerNorm:
    case OpKind::kEmbedding:
      return product({d[0], d[1]});
    case OpKind::kElementwise:
    case OpKind::kReduction:
    case OpKind::kCopy:
      return static_cast<double>(d[0]);
  }
  return static_cast<double>(d[0]);
}

}  // namespace podsim::chip
