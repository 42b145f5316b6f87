// Internal to the workload layer: how one serving step splits over the mesh.
//
// make_plan() reads the sharding against the mesh once, checks that every
// shape divides evenly over the chips it is split across (ShapeError naming
// the workload field otherwise), and records the per-chip sizes the lowering
// emits. Symbols (README.md in this folder gives the schedules):
//   T = chips of the tensor axes, X = its first axis and Y the rest in 2D,
//   G = the gathered axes and R = the stationary rest when weight-gathered,
//   D = chips of the data axes, E = chips of the expert axes,
//   P = pipeline stages, M = micro-batches,
//   K = sequential prefill chunks (1 without), B_local = batch / D
//   sequences per replica, B_mb = B_local / (M x K),
//   q = new tokens per sequence (1 decode, prompt_len prefill).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/serving_spec.h"
#include "workload/program.h"

namespace podsim::workload::internal {

// A set of mesh axes and the number of chips they span together.
struct AxisGroup {
  std::vector<std::string> names;
  uint64_t chips = 1;

  // "the 16 chips of tensor axes [x, y]", for error messages.
  std::string describe(std::string_view role) const;
};

enum class TensorScheme : uint8_t {
  k1D,              // one tensor axis (or none): Megatron-style
  k2D,              // two or more tensor axes: d_model over X, heads and FFN over Y
  kWeightGathered,  // weights gathered per layer over G, activations split by sequence over
                    // G; 1D weight-stationary over the rest R (Pope et al.'s X, XY, XYZ)
};

// How attention is split over the chips that hold a micro-batch.
enum class AttentionSplit : uint8_t {
  kHeads,        // by heads (1D, WG: over R; 2D: over Y, sequences over X)
  kHeadsOverXY,  // 2D, a micro-batch too small to split over X: heads over X and Y
  kBatch,        // by sequence after an all-to-all (the KV cache by batch)
};

struct ShardPlan {
  // The model as lowered: with sharding.pad_heads, its heads and kv_heads are
  // the padded counts (config/head_padding.h), so every shape, weight and KV
  // byte derived from it includes the padding. Model FLOPs are not derived
  // from it (lower() counts serving.model, the real heads).
  config::ModelSpec model;
  config::Phase phase = config::Phase::kDecode;
  TensorScheme scheme = TensorScheme::k1D;
  bool reduce_scatter = false;  // 1D: RS + AG instead of all-reduce
  AttentionSplit attention = AttentionSplit::kHeads;
  bool overlap = true;             // sharding.overlap_collectives
  bool collective_matmul = false;  // sharding.collective_matmul ON (collective_matmul.cc)
  config::AttentionMapping attention_mapping = config::AttentionMapping::kAuto;  // sharding's

  AxisGroup tensor;         // T
  AxisGroup x, y;           // 2D only: the first tensor axis and the rest
  AxisGroup stationary;     // 1D: T; weight-gathered: R, the tensor axes not gathered over
  AxisGroup gathered;       // weight-gathered: G, the axes weights are gathered over
  AxisGroup data;           // D
  AxisGroup expert;         // E
  AxisGroup expert_split;   // R: expert axes whose chips hold the same tokens
  AxisGroup expert_tensor;  // T_e: tensor axes the expert FFNs are split over
  AxisGroup pipeline;       // P
  uint32_t layers_per_stage = 0;
  uint32_t micro_batches = 1;
  uint32_t chunks = 1;  // K: sequential prefill chunks (scenario.prefill_chunks)
  // Weight-gathered, K > 1: the chunks run inside each layer, so each
  // layer's weights are gathered once for all of them (false: once per
  // chunk, scenario.regather_chunk_weights, or nothing is gathered).
  bool chunks_share_gathers = false;

  // One micro-batch on one chip, before any scattering of the residual stream.
  uint64_t seqs = 0;    // sequences: B_mb (weight-gathered: B_mb / G)
  uint64_t q = 0;       // new tokens per sequence
  uint64_t rows = 0;    // seqs * q tokens
  uint64_t kv_len = 0;  // keys per sequence after the step: context_len + q
  // Tokens the LM head scores: rows (decode, and a prefill scoring every
  // token: speculative verification), seqs (prefill).
  uint64_t last_rows = 0;

  // Projections (per chip).
  uint64_t proj_in = 0;        // contraction from the residual: d (1D, WG), d / X (2D)
  uint64_t proj_heads = 0;     // query heads: H / T (1D), H / Y (2D), H / R (WG)
  uint64_t proj_kv_heads = 0;  // KV heads, replicated when fewer than the chips
  uint64_t ffn_cols = 0;       // dense FFN width: F / T (1D), F / Y (2D), F / R (WG)

  // Attention (per chip). With model.mla: decode attends in the absorbed
  // form over one latent "KV head" (att_kv_heads 1); prefill materialises
  // every head's K and V (att_kv_heads = att_heads).
  uint64_t att_seqs = 0;
  uint64_t att_heads = 0;
  uint64_t att_kv_heads = 0;

  // Mixture of experts (per chip; 0 without MoE layers).
  uint64_t moe_rows = 0;       // tokens this chip routes: rows / R
  uint64_t experts_local = 0;  // experts / E
  uint64_t expert_cols = 0;    // expert_ffn_dim / T_e
  uint64_t shared_cols = 0;    // shared_experts * expert_ffn_dim / T_e

  // Attention by sequence after an all-to-all (sharding.kv_layout KV_BY_BATCH).
  bool kv_by_batch() const { return attention == AttentionSplit::kBatch; }
  // Weights are all-gathered before use (over more than one chip).
  bool gathers_weights() const {
    return scheme == TensorScheme::kWeightGathered && gathered.chips > 1;
  }
  // Multi-head latent attention's absorbed form (model.mla, DECODE).
  bool mla_absorbed() const { return model.mla && phase == config::Phase::kDecode; }
  uint32_t ffn_matrices() const { return model.gated_ffn ? 3 : 2; }
  // Per-chip columns of the QKV projection: (proj_heads + 2 proj_kv_heads) hd.
  uint64_t qkv_cols() const { return (proj_heads + 2 * proj_kv_heads) * model.head_dim; }
  // Whole-model weight elements of one layer's QKV and output projections.
  uint64_t qkv_weights() const {
    return model.d_model * (uint64_t{model.heads} + 2ull * model.kv_heads) * model.head_dim;
  }
  uint64_t attn_out_weights() const {
    return uint64_t{model.heads} * model.head_dim * model.d_model;
  }
  // "by-heads", "by-batch", "by-heads over x and y" (2D, see AttentionSplit).
  std::string attention_layout() const;
  // Bytes of `elements` activations / weights.
  uint64_t act_bytes(uint64_t elements) const;
  uint64_t weight_bytes(uint64_t elements) const;
};

// Throws ShapeError for a shape that does not divide, or an axis used in two
// conflicting roles; std::out_of_range for an axis the mesh does not have.
ShardPlan make_plan(const config::ServingSpec& serving, const MeshAxes& mesh);

}  // namespace podsim::workload::internal
