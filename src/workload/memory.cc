#include "workload/memory.h"

#include <type_traits>

namespace podsim::workload::internal {
namespace {

// Multi-head latent attention (mla_emitter.cc): the down projections and
// the latents' norm scales on every chip, the rest split by heads.
void add_mla_weights(const ShardPlan& p, uint64_t& sharded, uint64_t& replicated) {
  const config::MlaSpec& a = *p.model.mla;
  const uint64_t h = p.proj_heads;
  sharded +=
      a.q_rank * h * a.qk_dim() + a.kv_rank * h * (a.nope_dim + a.v_dim) + h * a.v_dim * p.proj_in;
  replicated += p.proj_in * (a.q_rank + a.cache_width()) + a.q_rank + a.kv_rank;
}

// Matrix elements of one layer on one chip, as the lowering shards them.
uint64_t layer_weight_elements(const ShardPlan& p, uint32_t layer) {
  const config::ModelSpec& m = p.model;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;  // up (+ gate)
  const uint64_t hd = m.head_dim;
  // Weight-gathered, the proj_* sizes are the stationary chips' 1 / R of
  // each matrix, stored 1 / G of that (1 / T in all).
  const uint64_t stored = p.scheme == TensorScheme::kWeightGathered ? p.gathered.chips : 1;
  uint64_t sharded = 0;
  uint64_t replicated = 2 * m.d_model;  // the two norm scales
  if (m.mla) {
    add_mla_weights(p, sharded, replicated);
  } else {
    sharded = p.proj_in * (p.proj_heads + 2 * p.proj_kv_heads) * hd + p.proj_heads * hd * p.proj_in;
  }
  if (!m.is_moe_layer(layer)) {
    sharded += (g + 1) * p.proj_in * p.ffn_cols;
  } else {
    replicated += m.d_model * m.moe->experts;  // router
    sharded += p.experts_local * (g + 1) * m.d_model * p.expert_cols;
    sharded += (g + 1) * m.d_model * p.shared_cols;
  }
  return sharded / stored + replicated;
}

}  // namespace

uint64_t stage_weight_bytes(const ShardPlan& p, const StageExtent& stage) {
  const config::ModelSpec& m = p.model;
  uint64_t elements = 0;
  for (uint32_t l = stage.first_layer; l < stage.first_layer + stage.layers; ++l)
    elements += layer_weight_elements(p, l);
  const uint64_t table = m.vocab * m.d_model / p.tensor.chips;
  if (stage.first)
    elements += table;
  if (stage.last)
    elements += m.d_model + (m.tied_embeddings && stage.first ? 0 : table);
  return p.weight_bytes(elements);
}

uint64_t stage_kv_cache_bytes(const ShardPlan& p, const StageExtent& stage) {
  // Every chunk's sequences keep their cache; with mla one latent and RoPE
  // key per token, whatever the heads.
  const uint64_t width =
      p.model.mla ? p.model.mla->cache_width() : 2 * p.att_kv_heads * p.model.head_dim;
  const uint64_t per_layer = uint64_t{p.micro_batches} * p.chunks * p.att_seqs * p.kv_len * width;
  return chip::bytes_of(per_layer * stage.layers, p.model.kv_dtype);
}

uint64_t activation_working_set(const Instruction& ins) {
  const chip::Op* op = std::get_if<chip::Op>(&ins.body);
  if (op == nullptr)
    return 0;
  return std::visit(
      [&](const auto& o) -> uint64_t {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, chip::Matmul>) {
          return o.batch * (chip::bytes_of(o.m * o.k, o.act) + chip::bytes_of(o.m * o.n, o.act));
        } else if constexpr (std::is_same_v<T, chip::Attention>) {
          return chip::bytes_of(o.batch * o.q_len * o.heads * o.head_dim, o.act) +
                 chip::bytes_of(o.batch * o.q_len * o.heads * o.value_dim(), o.act);
        } else if constexpr (std::is_same_v<T, chip::Elementwise>) {
          return o.bytes_in + o.bytes_out;
        } else if constexpr (std::is_same_v<T, chip::Norm>) {
          return 2 * chip::bytes_of(o.rows * o.width, o.dtype);
        } else if constexpr (std::is_same_v<T, chip::Reduction>) {
          return chip::bytes_of(o.elements, o.dtype) + chip::bytes_of(o.outputs, o.dtype);
        } else if constexpr (std::is_same_v<T, chip::Embedding>) {
          return chip::bytes_of(o.tokens * o.width, o.dtype) + 4 * o.tokens;
        } else {
          static_assert(std::is_same_v<T, chip::Copy>);
          return o.bytes;
        }
      },
      *op);
}

}  // namespace podsim::workload::internal
