#include "config/internal/serving_converter.h"

#include <algorithm>

#include "config/internal/workload_converter.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

MoeSpec to_moe_spec(const Moe& m) {
  MoeSpec spec;
  spec.experts = m.experts();
  spec.experts_per_token = m.experts_per_token();
  spec.shared_experts = m.shared_experts();
  spec.expert_ffn_dim = m.expert_ffn_dim();
  spec.first_dense_layers = m.first_dense_layers();
  spec.moe_layer_interval = std::max(1u, m.moe_layer_interval());
  return spec;
}

ModelSpec to_model_spec(const Model& m) {
  ModelSpec spec;
  spec.name = m.name();
  spec.layers = m.layers();
  spec.d_model = m.d_model();
  spec.heads = m.heads();
  spec.kv_heads = m.kv_heads();
  spec.head_dim = m.head_dim();
  spec.ffn_dim = m.ffn_dim();
  spec.gated_ffn = m.gated_ffn();
  spec.vocab = m.vocab();
  spec.tied_embeddings = m.tied_embeddings();
  spec.parallel_block = m.parallel_block();
  if (m.has_moe())
    spec.moe = to_moe_spec(m.moe());
  if (m.has_mla()) {
    const MultiHeadLatentAttention& a = m.mla();
    spec.mla = MlaSpec{a.kv_lora_rank(), a.q_lora_rank(), a.qk_nope_head_dim(),
                       a.qk_rope_head_dim(), a.v_head_dim()};
    // Every head has its own K and V (materialised from the latent), of the
    // non-absorbed query/key width.
    spec.kv_heads = spec.heads;
    spec.head_dim = static_cast<uint32_t>(spec.mla->qk_dim());
  }
  spec.max_context_len = m.max_context_len();
  spec.weight_dtype = to_dtype(m.weight_dtype());
  spec.activation_dtype = to_dtype(m.activation_dtype());
  spec.kv_dtype = to_dtype(m.kv_dtype());
  return spec;
}

ScenarioSpec to_scenario_spec(const Scenario& s) {
  ScenarioSpec spec;
  // A generation starts with its prefill (config/serving_spec.h).
  spec.phase = s.phase() == DECODE ? Phase::kDecode : Phase::kPrefill;
  spec.batch = s.batch();
  spec.prompt_len = s.prompt_len();
  spec.context_len = s.context_len();
  spec.micro_batches = std::max(1u, s.micro_batches());
  spec.prefill_chunks = s.prefill_chunks();
  spec.output_len = s.phase() == GENERATION ? s.output_len() : 0;
  return spec;
}

ShardingSpec to_sharding_spec(const Sharding& s) {
  ShardingSpec spec;
  spec.tensor_axes.assign(s.tensor_axes().begin(), s.tensor_axes().end());
  spec.tensor_collective = s.tensor_collective() == TENSOR_REDUCE_SCATTER_ALL_GATHER
                               ? TensorCollective::kReduceScatterAllGather
                               : TensorCollective::kAllReduce;
  spec.weight_gathered = s.weight_gathered() || s.weight_gathered_axes_size() > 0;
  spec.weight_gathered_axes.assign(s.weight_gathered_axes().begin(),
                                   s.weight_gathered_axes().end());
  spec.kv_layout = s.kv_layout() == KV_BY_BATCH ? KvLayout::kByBatch : KvLayout::kByHeads;
  spec.expert_axes.assign(s.expert_axes().begin(), s.expert_axes().end());
  spec.data_axes.assign(s.data_axes().begin(), s.data_axes().end());
  spec.pipeline_axis = s.pipeline_axis();
  spec.overlap_collectives = !s.has_overlap_collectives() || s.overlap_collectives();
  spec.pad_heads = s.pad_heads();
  spec.collective_matmul = s.collective_matmul() == COLLECTIVE_MATMUL_ON ? CollectiveMatmul::kOn
                           : s.collective_matmul() == COLLECTIVE_MATMUL_AUTO
                               ? CollectiveMatmul::kAuto
                               : CollectiveMatmul::kOff;
  switch (s.attention_mapping()) {
    case ATTENTION_MAPPING_CACHE_STATIONARY:
      spec.attention_mapping = AttentionMapping::kCacheStationary;
      break;
    case ATTENTION_MAPPING_QUERIES_STATIONARY:
      spec.attention_mapping = AttentionMapping::kQueriesStationary;
      break;
    case ATTENTION_MAPPING_VECTOR_UNIT:
      spec.attention_mapping = AttentionMapping::kVectorUnit;
      break;
    default:
      spec.attention_mapping = AttentionMapping::kAuto;
  }
  return spec;
}

}  // namespace

ServingSpec to_serving_spec(const Workload& workload) {
  return ServingSpec{to_model_spec(workload.model()), to_scenario_spec(workload.scenario()),
                     to_sharding_spec(workload.sharding())};
}

}  // namespace podsim::config::internal
