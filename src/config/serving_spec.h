// Validated, typed description of a serving step (the second workload form in
// proto/podsim/workload.proto): a model, how it is sharded over the device
// mesh, and the scenario to play. Produced by the workload loader against a
// pod, so every axis named here exists and every shape divides evenly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/compute_ops.h"
#include "config/dtype.h"

namespace podsim::config {

// Mixture of experts in the FFN of some layers.
struct MoeSpec {
  uint32_t experts = 0;            // routed experts
  uint32_t experts_per_token = 0;  // top-k
  uint32_t shared_experts = 0;     // always-on experts, each of expert_ffn_dim
  uint64_t expert_ffn_dim = 0;
  // Layers [0, first_dense_layers) are dense; after that every
  // `moe_layer_interval`-th layer is MoE (1: all of them).
  uint32_t first_dense_layers = 0;
  uint32_t moe_layer_interval = 1;

  friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

// Multi-head latent attention (DeepSeek-V2/V3; proto/podsim/workload.proto,
// MultiHeadLatentAttention). One latent of kv_rank plus one decoupled RoPE key
// of rope_dim per token are cached and shared by every head.
struct MlaSpec {
  uint32_t kv_rank = 0;   // d_c
  uint32_t q_rank = 0;    // d_c'
  uint32_t nope_dim = 0;  // per-head query/key part without RoPE
  uint32_t rope_dim = 0;  // decoupled RoPE query/key part
  uint32_t v_dim = 0;     // per-head value dimension

  // Cached elements per token and layer: the latent and the RoPE key.
  uint64_t cache_width() const { return uint64_t{kv_rank} + rope_dim; }
  // Per-head query/key width of the non-absorbed form.
  uint64_t qk_dim() const { return uint64_t{nope_dim} + rope_dim; }

  friend bool operator==(const MlaSpec&, const MlaSpec&) = default;
};

// A decoder-only transformer.
struct ModelSpec {
  std::string name;
  uint32_t layers = 0;
  uint64_t d_model = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;  // == heads: multi-head; 1: multi-query; else grouped-query
  // With mla: kv_heads = heads (each head has its own K and V, materialised
  // from the shared latent) and head_dim = mla->qk_dim().
  uint32_t head_dim = 0;
  uint64_t ffn_dim = 0;   // dense FFN width
  bool gated_ffn = true;  // SwiGLU-style: three matrices instead of two
  uint64_t vocab = 0;
  bool tied_embeddings = false;
  // Attention and FFN side by side on the same normed input, outputs summed
  // (GPT-J, PaLM): one fused input and one fused output projection, one
  // tensor-parallel reduction per layer. Dense models only.
  bool parallel_block = false;
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;  // multi-head latent attention instead of GQA
  // The longest sequence the model serves, in tokens; 0: not given.
  uint32_t max_context_len = 0;
  DType weight_dtype = DType::kBf16;
  DType activation_dtype = DType::kBf16;
  DType kv_dtype = DType::kBf16;

  // KV cache elements per token and layer: K and V of every KV head, or with
  // mla the latent and the RoPE key.
  uint64_t kv_cache_width() const {
    return mla ? mla->cache_width() : 2 * uint64_t{kv_heads} * head_dim;
  }

  bool is_moe_layer(uint32_t layer) const {
    return moe && layer >= moe->first_dense_layers &&
           (layer - moe->first_dense_layers) % moe->moe_layer_interval == 0;
  }

  friend bool operator==(const ModelSpec&, const ModelSpec&) = default;
};

// The phase of one serving step. A whole generation (workload.proto's phase
// GENERATION) is not a step: it is a prefill scenario with output_len > 0,
// which the study layer plays as that prefill and then output_len - 1
// decode steps (study/generation.h); the lowering sees only its steps.
enum class Phase { kPrefill, kDecode };

struct ScenarioSpec {
  Phase phase = Phase::kDecode;
  uint32_t batch = 1;          // sequences in the step (whole pod)
  uint32_t prompt_len = 0;     // prefill: tokens per sequence processed
  uint32_t context_len = 0;    // tokens already in the KV cache per sequence
  uint32_t micro_batches = 1;  // pipeline micro-batches
  // Sequential chunks of each replica's prefill batch; 0: one pass unless the
  // activations do not fit (the study layer then picks the fewest that fit).
  uint32_t prefill_chunks = 0;
  // Weight-gathered chunks: gather each layer's weights once per chunk, with
  // only one chunk's residual stream live, instead of once per layer for
  // every chunk, with every chunk's residual live (workload/lower.cc). Not an
  // input: the study layer sets it only when gathering once does not fit
  // (study/prefill_chunks.h), and the result reports it.
  bool regather_chunk_weights = false;
  // A whole generation (phase kPrefill): tokens generated per sequence, the
  // first by this prefill, each other by a decode step; 0: the single step.
  uint32_t output_len = 0;
  // A prefill whose every new token is scored by the LM head, not only each
  // sequence's last: the verification pass of speculative decoding (the
  // target checks prompt_len - 1 draft tokens and adds its own next one).
  // Not an input: set by `podsim serve` (fleet/speculative_timer.h).
  bool score_every_token = false;

  bool is_generation() const { return output_len > 0; }

  friend bool operator==(const ScenarioSpec&, const ScenarioSpec&) = default;
};

enum class TensorCollective { kAllReduce, kReduceScatterAllGather };
enum class KvLayout { kByHeads, kByBatch };
// Tensor-parallel collectives looped with their matmuls (workload.proto).
enum class CollectiveMatmul { kOff, kOn, kAuto };

struct ShardingSpec {
  // Weight-stationary tensor parallelism: none, one axis (1D) or two (2D).
  std::vector<std::string> tensor_axes;
  TensorCollective tensor_collective = TensorCollective::kAllReduce;
  // Weights all-gathered layer by layer over tensor_axes while activations stay
  // sharded by batch (for large prefill batches).
  bool weight_gathered = false;
  // Gather over these tensor axes only (Pope et al.'s X and XY
  // weight-gathered layouts), 1D weight-stationary over the rest; implies
  // weight_gathered. Empty with weight_gathered: every tensor axis.
  std::vector<std::string> weight_gathered_axes;
  CollectiveMatmul collective_matmul = CollectiveMatmul::kOff;
  // How --compute tensorcore maps attention (compute_ops.h); kAuto: fastest.
  AttentionMapping attention_mapping = AttentionMapping::kAuto;
  KvLayout kv_layout = KvLayout::kByHeads;
  std::vector<std::string> expert_axes;  // expert parallelism
  std::vector<std::string> data_axes;    // replicas, batch split over them
  std::string pipeline_axis;             // empty: no pipeline
  bool overlap_collectives = true;       // collectives may overlap independent compute
  // Heads (and KV heads) padded to split over the chips that split heads
  // (config/head_padding.h); the lowering computes the padded shapes.
  bool pad_heads = false;

  friend bool operator==(const ShardingSpec&, const ShardingSpec&) = default;
};

struct ServingSpec {
  ModelSpec model;
  ScenarioSpec scenario;
  ShardingSpec sharding;

  friend bool operator==(const ServingSpec&, const ServingSpec&) = default;
};

}  // namespace podsim::config
