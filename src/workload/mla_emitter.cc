// The multi-head latent attention block of one layer for one micro-batch
// (README.md, "Multi-head latent attention"). Per chip, 1D tensor
// parallelism over T chips, h = H / T heads, rows = tokens, d_c = kv_rank,
// d_c' = q_rank, r = rope_dim, n = nope_dim, v = v_dim:
//   q_down   rows x d x d_c'          replicated: no communication
//   kv_down  rows x d x (d_c + r)     replicated; the latent and RoPE key
//   norms    of the query latent and of the KV latent
//   q_up     rows x d_c' x h (n + r)  head-sharded
//   kv_write the new tokens' d_c + r elements, into this chip's cache
// Decode, absorbed (W_UK folded into the query, W_UV applied after):
//   q_absorb h x [rows x n x d_c]     batched over heads
//   attention over one latent head: scores of width d_c + r, values the
//            first d_c elements of each cached row (read once)
//   v_up     h x [rows x d_c x v]
// Prefill, materialised (each head's K and V from the latent):
//   k_up     att_seqs kv_len x d_c x h n
//   v_up     att_seqs kv_len x d_c x h v
//   attention h heads over h KV heads, width n + r, values of v
// then out   rows x h v x d, row-parallel, reduced as every attention block.
// KV by batch (decode) trades heads for sequences around the attention with
// an all-to-all over T, as the GQA block does, of the d_c + r wide absorbed
// queries and the d_c wide outputs.
#include "workload/layer_emitter.h"

namespace podsim::workload::internal {

using config::CollectiveKind;

Ref LayerEmitter::latent_norm(std::string_view name, uint64_t width, Ref input) {
  return b_.compute(
      name, OpClass::kNorm,
      chip::Norm{chip::NormKind::kRms, plan_.rows, width, plan_.model.activation_dtype}, {input});
}

void LayerEmitter::mla_attention(Stream& s, uint32_t layer) {
  enter(s, layer);
  const ShardPlan& p = plan_;
  const config::ModelSpec& m = p.model;
  const config::MlaSpec& a = *m.mla;
  const uint64_t heads = m.heads;
  const uint64_t h = p.proj_heads;
  const uint64_t d = m.d_model;
  constexpr OpClass kProj = OpClass::kAttentionProjection;

  const Ref x = projection_input(s, "attn");
  Ref cq = matmul("attn.q_down", kProj, 1, p.rows, p.proj_in, a.q_rank, x, 0);
  Ref ckv = matmul("attn.kv_down", kProj, 1, p.rows, p.proj_in, a.cache_width(), x, 0);
  cq = latent_norm("attn.q_norm", a.q_rank, cq);
  ckv = latent_norm("attn.kv_norm", a.kv_rank, ckv);
  Ref q = matmul("attn.q_up", kProj, 1, p.rows, a.q_rank, h * a.qk_dim(), cq,
                 a.q_rank * heads * a.qk_dim());
  // The new tokens' latent and RoPE key, appended to this chip's cache.
  const Ref kv_write =
      b_.compute("attn.kv_write", OpClass::kAttention,
                 chip::Copy{chip::bytes_of(p.att_seqs * p.q * a.cache_width(), m.kv_dtype)}, {ckv});

  chip::Attention at;
  at.phase = p.phase == config::Phase::kDecode ? chip::AttentionPhase::kDecode
                                               : chip::AttentionPhase::kPrefill;
  at.batch = p.att_seqs;
  at.q_len = p.q;
  at.kv_len = p.kv_len;
  at.heads = p.att_heads;
  at.kv_heads = p.att_kv_heads;
  at.act = m.activation_dtype;
  at.kv = m.kv_dtype;
  at.causal = true;
  at.mapping = p.attention_mapping;
  Ref o = kNoRef;
  if (p.mla_absorbed()) {
    q = matmul("attn.q_absorb", kProj, h, p.rows, a.nope_dim, a.kv_rank, q,
               heads * a.nope_dim * a.kv_rank);
    if (p.kv_by_batch())
      q = act_collective("attn.to_batch", CollectiveKind::kAllToAll,
                         p.rows * heads * a.cache_width(), p.tensor, q);
    at.head_dim = a.cache_width();
    at.v_head_dim = a.kv_rank;
    at.values_in_keys = true;
    o = b_.compute("attn.core", OpClass::kAttention, at, {q, kv_write});
    if (p.kv_by_batch())
      o = act_collective("attn.to_heads", CollectiveKind::kAllToAll, p.rows * heads * a.kv_rank,
                         p.tensor, o);
    o = matmul("attn.v_up", kProj, h, p.rows, a.kv_rank, a.v_dim, o, heads * a.kv_rank * a.v_dim);
  } else {
    const uint64_t kv_rows = p.att_seqs * p.kv_len;
    const Ref k = matmul("attn.k_up", kProj, 1, kv_rows, a.kv_rank, h * a.nope_dim, kv_write,
                         a.kv_rank * heads * a.nope_dim);
    const Ref v = matmul("attn.v_up", kProj, 1, kv_rows, a.kv_rank, h * a.v_dim, kv_write,
                         a.kv_rank * heads * a.v_dim);
    at.head_dim = a.qk_dim();
    at.v_head_dim = a.v_dim;
    o = b_.compute("attn.core", OpClass::kAttention, at, {q, k, v});
  }
  o = matmul("attn.out", kProj, 1, p.rows, h * a.v_dim, p.proj_in, o, heads * a.v_dim * d);
  Layout layout = Layout::kFull;
  o = reduce_output(o, "attn", layout);
  residual_add(s, "attn.residual", o, layout);
}

}  // namespace podsim::workload::internal
