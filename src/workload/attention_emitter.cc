// The attention block of one layer for one micro-batch (README.md,
// "Attention"). Per chip, with rows = tokens of the micro-batch, hd = head_dim:
//   QKV projection  rows x proj_in x (proj_heads + 2 proj_kv_heads) hd
//   attention       att_seqs sequences, att_heads heads over att_kv_heads
//   output          rows x proj_heads hd x proj_in
// 1D splits heads over T; 2D splits heads over Y and, after the QKV
// reduce-scatter over X, sequences over X (or, for too few sequences, heads
// over X too); weight-gathered splits heads over R (every head when R is
// one chip) for its own sequences. KV by batch trades heads for sequences with an
// all-to-all over the head axes before attention, and back after it.
#include "workload/layer_emitter.h"

namespace podsim::workload::internal {

using config::CollectiveKind;

Ref LayerEmitter::attention_core(Ref qkv, Ref kv) {
  const ShardPlan& p = plan_;
  const config::ModelSpec& m = p.model;
  chip::Attention a;
  a.phase = p.phase == config::Phase::kDecode ? chip::AttentionPhase::kDecode
                                              : chip::AttentionPhase::kPrefill;
  a.batch = p.att_seqs;
  a.q_len = p.q;
  a.kv_len = p.kv_len;
  a.heads = p.att_heads;
  a.kv_heads = p.att_kv_heads;
  a.head_dim = m.head_dim;
  a.act = m.activation_dtype;
  a.kv = m.kv_dtype;
  a.causal = true;
  a.mapping = p.attention_mapping;
  // The new tokens' keys and values, appended to this chip's cache.
  const uint64_t kv_elements = p.att_seqs * p.q * 2 * p.att_kv_heads * m.head_dim;
  b_.compute("attn.kv_write", OpClass::kAttention,
             chip::Copy{chip::bytes_of(kv_elements, m.kv_dtype)}, {kv == kNoRef ? qkv : kv});
  return b_.compute("attn.core", OpClass::kAttention, a, {qkv, kv});
}

void LayerEmitter::attention(Stream& s, uint32_t layer) {
  if (plan_.model.mla) {
    mla_attention(s, layer);
    return;
  }
  enter(s, layer);
  const ShardPlan& p = plan_;
  const uint64_t hd = p.model.head_dim;
  const bool two_d = p.scheme == TensorScheme::k2D;
  const bool over_xy = p.attention == AttentionSplit::kHeadsOverXY;
  const MatmulShape qkv{
      "attn.qkv", OpClass::kAttentionProjection, p.rows, p.proj_in, p.qkv_cols(), p.qkv_weights()};
  Ref x = kNoRef;
  Ref kv = kNoRef;  // a separate all-reduce of the KV heads (scatter_qkv_x)
  if (two_d && !splits_kv_x()) {
    // By sequence (rows), or with heads over X and Y by head (columns).
    const LoopableCollective rs{"attn.qkv.scatter_x",
                                p.rows * p.qkv_cols(),
                                &p.x,
                                over_xy ? ChunkDim::kColumns : ChunkDim::kRows,
                                {}};
    x = project(s, "attn", qkv, &rs);
  } else {
    x = project(s, "attn", qkv, nullptr);
    if (two_d) {
      x = scatter_qkv_x(x, kv);
      if (p.collective_matmul && p.x.chips > 1) {
        whole_count_ += 2;
        whole_.insert("2D attention with KV heads shared by several chips of " +
                      p.x.describe("mesh") +
                      ": their all-reduce does not loop, so the QKV projection's collectives "
                      "stay whole");
      }
    }
  }
  x = attention_heads(x, kv);
  // 2D: the outputs gathered over X, by sequence (or, over X and Y, by head:
  // the output projection's contraction).
  const LoopableCollective gather_x{"attn.out.gather_x",
                                    p.rows * p.proj_heads * hd,
                                    &p.x,
                                    over_xy ? ChunkDim::kContraction : ChunkDim::kRows,
                                    {}};
  const MatmulShape out{"attn.out", OpClass::kAttentionProjection, p.rows, p.proj_heads * hd,
                        p.proj_in,  p.attn_out_weights()};
  Layout layout = Layout::kFull;
  x = matmul_reduce(out, x, two_d ? &gather_x : nullptr, "attn", layout);
  residual_add(s, "attn.residual", x, layout);
}

Ref LayerEmitter::attention_middle(Ref qkv_out) {
  const ShardPlan& p = plan_;
  const bool two_d = p.scheme == TensorScheme::k2D;
  Ref x = qkv_out;
  Ref kv = kNoRef;  // a separate all-reduce of the KV heads (scatter_qkv_x)
  if (two_d)
    x = scatter_qkv_x(x, kv);
  x = attention_heads(x, kv);
  if (two_d)
    x = act_collective("attn.out.gather_x", CollectiveKind::kAllGather,
                       p.rows * p.proj_heads * p.model.head_dim, p.x, x);
  return x;
}

Ref LayerEmitter::attention_heads(Ref qkv, Ref kv) {
  const ShardPlan& p = plan_;
  const config::ModelSpec& m = p.model;
  const uint64_t hd = m.head_dim;
  const bool two_d = p.scheme == TensorScheme::k2D;
  Ref x = qkv;
  const AxisGroup& head_axes = two_d ? p.y : p.stationary;
  const uint64_t head_rows = two_d ? p.rows / p.x.chips : p.rows;
  if (p.kv_by_batch())
    x = act_collective("attn.to_batch", CollectiveKind::kAllToAll,
                       head_rows * (uint64_t{m.heads} + 2ull * m.kv_heads) * hd, head_axes, x);
  x = attention_core(x, kv);
  if (p.kv_by_batch())
    x = act_collective("attn.to_heads", CollectiveKind::kAllToAll, head_rows * m.heads * hd,
                       head_axes, x);
  return x;
}

bool LayerEmitter::splits_kv_x() const {
  return plan_.attention == AttentionSplit::kHeadsOverXY &&
         plan_.proj_kv_heads % plan_.x.chips != 0;
}

// 2D: the QKV outputs (rows x (H/Y + 2 K_y) hd) are partial sums over X.
// Reduce-scattered by sequence, each chip attends for rows / X tokens; with
// too few sequences (AttentionSplit::kHeadsOverXY), by column instead, each
// chip keeping its H / T query heads, and the KV heads too when they split
// over X; KV heads shared by several X chips are all-reduced over X (a
// reduce-scatter cannot hand one block to two chips).
Ref LayerEmitter::scatter_qkv_x(Ref qkv_out, Ref& kv) {
  const ShardPlan& p = plan_;
  const uint64_t hd = p.model.head_dim;
  if (!splits_kv_x())
    return act_collective("attn.qkv.scatter_x", CollectiveKind::kReduceScatter,
                          p.rows * p.qkv_cols(), p.x, qkv_out);
  kv = act_collective("attn.kv.allreduce_x", CollectiveKind::kAllReduce,
                      p.rows * 2 * p.proj_kv_heads * hd, p.x, qkv_out);
  return act_collective("attn.q.scatter_x", CollectiveKind::kReduceScatter,
                        p.rows * p.proj_heads * hd, p.x, qkv_out);
}

}  // namespace podsim::workload::internal
