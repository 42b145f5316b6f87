// The FFN block of one layer for one micro-batch: dense (README.md, "FFN") or
// mixture of experts (README.md, "MoE"). g = 2 for a gated FFN (up and gate
// fused into one matmul), else 1.
#include <algorithm>

#include "workload/layer_emitter.h"

namespace podsim::workload::internal {

using config::CollectiveKind;

void LayerEmitter::ffn(Stream& s, uint32_t layer) {
  enter(s, layer);
  if (plan_.model.is_moe_layer(layer))
    moe(s);
  else
    dense_ffn(s);
}

// Per chip: up/gate rows x proj_in x g ffn_cols, activation, down
// rows x ffn_cols x proj_in. 2D: the up/gate outputs are partial sums over X,
// reduce-scattered over X by columns (F / T per chip for the activation) and
// all-gathered back over X (F / Y) before the down projection.
void LayerEmitter::dense_ffn(Stream& s) {
  const ShardPlan& p = plan_;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  const uint64_t d = p.model.d_model;
  const uint64_t f = p.model.ffn_dim;
  const bool two_d = p.scheme == TensorScheme::k2D;
  const MatmulShape up{"ffn.up_gate", OpClass::kFfn, p.rows, p.proj_in, g * p.ffn_cols, g * d * f};
  const LoopableCollective scatter_x{
      "ffn.up.scatter_x", p.rows * g * p.ffn_cols, &p.x, ChunkDim::kColumns, {}};
  Ref x = project(s, "ffn", up, two_d ? &scatter_x : nullptr);
  x = activation("ffn.act", OpClass::kFfn, p.rows, two_d ? p.ffn_cols / p.x.chips : p.ffn_cols, x);
  const LoopableCollective gather_x{
      "ffn.down.gather_x", p.rows * p.ffn_cols, &p.x, ChunkDim::kContraction, {}};
  const MatmulShape down{"ffn.down", OpClass::kFfn, p.rows, p.ffn_cols, p.proj_in, f * d};
  Layout layout = Layout::kFull;
  x = matmul_reduce(down, x, two_d ? &gather_x : nullptr, "ffn", layout);
  residual_add(s, "ffn.residual", x, layout);
}

Ref LayerEmitter::ffn_middle(Ref up_out) {
  const ShardPlan& p = plan_;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  Ref x = up_out;
  uint64_t act_cols = p.ffn_cols;
  if (p.scheme == TensorScheme::k2D) {
    x = act_collective("ffn.up.scatter_x", CollectiveKind::kReduceScatter, p.rows * g * p.ffn_cols,
                       p.x, x);
    act_cols = p.ffn_cols / p.x.chips;
  }
  x = activation("ffn.act", OpClass::kFfn, p.rows, act_cols, x);
  if (p.scheme == TensorScheme::k2D)
    x = act_collective("ffn.down.gather_x", CollectiveKind::kAllGather, p.rows * p.ffn_cols, p.x,
                       x);
  return x;
}

// Shared experts: a dense FFN of S x expert_ffn_dim columns, split over T_e,
// on the tokens this chip routes.
Ref LayerEmitter::shared_experts(Ref input) {
  const ShardPlan& p = plan_;
  const config::MoeSpec& moe = *p.model.moe;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  const uint64_t d = p.model.d_model;
  const uint64_t width = uint64_t{moe.shared_experts} * moe.expert_ffn_dim;
  Ref x = matmul("moe.shared.up_gate", OpClass::kExpertFfn, 1, p.moe_rows, d, g * p.shared_cols,
                 input, g * d * width);
  x = activation("moe.shared.act", OpClass::kExpertFfn, p.moe_rows, p.shared_cols, x);
  return matmul("moe.shared.down", OpClass::kExpertFfn, 1, p.moe_rows, p.shared_cols, d, x,
                width * d);
}

// A MoE block reads full rows (rows x d). Chips along expert axes that hold
// the same tokens (R of them) each route rows / R = moe_rows. Each of those
// tokens goes to k experts: A = moe_rows x k assignments leave the chip in
// the dispatch all-to-all over the E expert chips (V = E x A x d), and with
// uniform routing as many arrive (E x A assignments over E chips). They
// spread over the chip's experts_local = experts / E experts: at most
// min(experts_local, A) experts are active, each with ceil(A / active)
// tokens (exact when A divides; the round-up is the padding a grouped
// matmul pays). Expert FFNs are split over T_e (tensor axes that are not
// expert axes), so their outputs are partial sums: after the combine
// all-to-all and the weighted sum, an all-reduce over T_e and an all-gather
// over R restore full rows on every chip.
void LayerEmitter::moe(Stream& s) {
  const ShardPlan& p = plan_;
  const config::MoeSpec& moe = *p.model.moe;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  const uint64_t d = p.model.d_model;
  const uint64_t k = moe.experts_per_token;
  const uint64_t f = moe.expert_ffn_dim;
  Ref x = norm(s, "moe.norm");
  x = full_rows(s, x, p.rows, "moe.gather");
  Ref route = matmul("moe.router", OpClass::kMoeRouter, 1, p.moe_rows, d, moe.experts, x, 0);
  chip::Elementwise topk;  // softmax over experts and top-k selection
  topk.elements = p.moe_rows * moe.experts;
  topk.flops_per_element = 5;
  topk.bytes_in = p.act_bytes(p.moe_rows * moe.experts);
  topk.bytes_out = p.moe_rows * k * 8;  // fp32 weight and int32 expert id
  route = b_.compute("moe.topk", OpClass::kMoeRouter, topk, {route});

  const uint64_t assignments = p.moe_rows * k;
  Ref routed = act_collective("moe.dispatch", CollectiveKind::kAllToAll,
                              p.expert.chips * assignments * d, p.expert, route);
  // Shared experts need no dispatch: they overlap it.
  const Ref shared = moe.shared_experts > 0 ? shared_experts(x) : kNoRef;
  const uint64_t active = std::min(p.experts_local, assignments);
  const uint64_t per_expert = (assignments + active - 1) / active;
  routed = matmul("moe.experts.up_gate", OpClass::kExpertFfn, active, per_expert, d,
                  g * p.expert_cols, routed, p.experts_local * g * d * f);
  routed = activation("moe.experts.act", OpClass::kExpertFfn, active * per_expert, p.expert_cols,
                      routed);
  routed = matmul("moe.experts.down", OpClass::kExpertFfn, active, per_expert, p.expert_cols, d,
                  routed, p.experts_local * f * d);
  routed = act_collective("moe.combine", CollectiveKind::kAllToAll,
                          p.expert.chips * assignments * d, p.expert, routed);
  chip::Elementwise sum;  // weighted sum of the k expert outputs (+ shared)
  sum.elements = p.moe_rows * d;
  sum.flops_per_element = static_cast<uint32_t>(2 * k + (shared != kNoRef ? 1 : 0));
  sum.bytes_in =
      p.act_bytes(assignments * d) + (shared != kNoRef ? p.act_bytes(p.moe_rows * d) : 0);
  sum.bytes_out = p.act_bytes(p.moe_rows * d);
  Ref y = b_.compute("moe.weighted_sum", OpClass::kExpertFfn, sum, {routed, shared});
  y = act_collective("moe.allreduce", CollectiveKind::kAllReduce, p.moe_rows * d, p.expert_tensor,
                     y);
  y = act_collective("moe.gather", CollectiveKind::kAllGather, p.rows * d, p.expert_split, y);
  residual_add(s, "moe.residual", y, Layout::kFull);
}

}  // namespace podsim::workload::internal
