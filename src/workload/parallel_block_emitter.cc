// A parallel attention+FFN block (GPT-J; PaLM, Chowdhery et al. 2022, section
// 2: y = x + Attention(LN(x)) + MLP(LN(x))) for one micro-batch. Per chip:
//   norm           one, shared by both branches
//   fused input    rows x proj_in x (qkv_cols + g ffn_cols): Q/K/V and the
//                  FFN's up (and gate) as one matmul, as PaLM fuses them
//   attention      as in the serial block, on the Q/K/V columns
//   FFN middle     activation (2D: scattered and gathered over X first)
//   fused output   rows x (proj_heads hd + ffn_cols) x proj_in: the attention
//                  output and the FFN down projection as one matmul, whose
//                  contraction over both sums the two branches
//   one reduction  of the summed output, as the serial block does per branch
// so tensor parallelism reduces once per layer instead of twice; FLOPs and
// weights are those of the serial block.
#include "workload/layer_emitter.h"

namespace podsim::workload::internal {

void LayerEmitter::layer(Stream& s, uint32_t layer) {
  if (!plan_.model.parallel_block) {
    attention(s, layer);
    ffn(s, layer);
    return;
  }
  enter(s, layer);
  parallel_block(s);
}

void LayerEmitter::parallel_block(Stream& s) {
  const ShardPlan& p = plan_;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  const uint64_t d = p.model.d_model;
  const uint64_t f = p.model.ffn_dim;
  // The 2D collectives between the fused projections serve two branches
  // each and stay whole; the gather before and the reduction after may loop.
  const MatmulShape in_mm{"block.in", OpClass::kFusedProjection,     p.rows,
                          p.proj_in,  p.qkv_cols() + g * p.ffn_cols, p.qkv_weights() + g * d * f};
  if (p.collective_matmul && p.scheme == TensorScheme::k2D && p.x.chips > 1) {
    if (!splits_kv_x()) {
      looped_parallel_block(s);
      return;
    }
    // The Q scatter and KV all-reduce, ffn.up.scatter_x, attn.out.gather_x,
    // ffn.down.gather_x.
    whole_count_ += 5;
    whole_.insert("2D parallel block with KV heads shared by several chips of " +
                  p.x.describe("mesh") +
                  ": their all-reduce does not loop, so the collectives between the fused "
                  "projections stay whole");
  }
  const Ref in = project(s, "block", in_mm, nullptr);
  const Ref att = attention_middle(in);
  const Ref mlp = ffn_middle(in);
  const MatmulShape out_mm{"block.out", OpClass::kFusedProjection,
                           p.rows,      p.proj_heads * p.model.head_dim + p.ffn_cols,
                           p.proj_in,   p.attn_out_weights() + f * d};
  Layout layout = Layout::kFull;
  const Ref out = matmul_reduce(out_mm, att, nullptr, "block", layout, mlp);
  residual_add(s, "block.residual", out, layout);
}

// The same block with its 2D collectives over X looped: the fused input
// projection's output is reduce-scattered over X by sequence (by head when
// heads span X and Y) for attention and by column for the FFN, one loop
// whose every step computes both parts for one destination and shifts them
// together; the fused output projection's input is gathered over X likewise
// (attention's outputs by sequence or head, the FFN's by contraction), each
// step's two chunk matmuls adding into one output. Whether a projection
// loops these or its Y collective is tensor_matmul()'s choice (the larger).
void LayerEmitter::looped_parallel_block(Stream& s) {
  const ShardPlan& p = plan_;
  const uint64_t g = p.model.gated_ffn ? 2 : 1;
  const uint64_t d = p.model.d_model;
  const uint64_t f = p.model.ffn_dim;
  const uint64_t heads_cols = p.proj_heads * p.model.head_dim;
  const bool over_xy = p.attention == AttentionSplit::kHeadsOverXY;
  const MatmulShape in_mm{"block.in", OpClass::kFusedProjection,     p.rows,
                          p.proj_in,  p.qkv_cols() + g * p.ffn_cols, p.qkv_weights() + g * d * f};
  const LoopSegment qkv{
      {"block.in", OpClass::kFusedProjection, p.rows, p.proj_in, p.qkv_cols(), p.qkv_weights()},
      over_xy ? ChunkDim::kColumns : ChunkDim::kRows,
      p.rows * p.qkv_cols()};
  const LoopSegment up{
      {"block.in", OpClass::kFusedProjection, p.rows, p.proj_in, g * p.ffn_cols, g * d * f},
      ChunkDim::kColumns,
      p.rows * g * p.ffn_cols};
  const LoopableCollective scatter_x{
      "block.in.scatter_x", qkv.elements + up.elements, &p.x, ChunkDim::kColumns, {qkv, up}};
  const Ref in = project(s, "block", in_mm, &scatter_x);
  const Ref att = attention_heads(in, kNoRef);
  const Ref mlp = activation("ffn.act", OpClass::kFfn, p.rows, p.ffn_cols / p.x.chips, in);
  const LoopSegment att_out{
      {"block.out", OpClass::kFusedProjection, p.rows, heads_cols, p.proj_in, p.attn_out_weights()},
      over_xy ? ChunkDim::kContraction : ChunkDim::kRows,
      p.rows * heads_cols};
  const LoopSegment down{
      {"block.out", OpClass::kFusedProjection, p.rows, p.ffn_cols, p.proj_in, f * d},
      ChunkDim::kContraction,
      p.rows * p.ffn_cols};
  const LoopableCollective gather_x{"block.out.gather_x",
                                    att_out.elements + down.elements,
                                    &p.x,
                                    ChunkDim::kContraction,
                                    {att_out, down}};
  const MatmulShape out_mm{"block.out", OpClass::kFusedProjection,
                           p.rows,      heads_cols + p.ffn_cols,
                           p.proj_in,   p.attn_out_weights() + f * d};
  Layout layout = Layout::kFull;
  const Ref out = matmul_reduce(out_mm, att, &gather_x, "block", layout, mlp);
  residual_add(s, "block.residual", out, layout);
}

}  // namespace podsim::workload::internal
