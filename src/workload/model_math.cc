#include "workload/model_math.h"

namespace podsim::workload {
namespace {

// Multi-head latent attention: W_DQ, W_UQ, W_DKV, W_UK, W_UV, W_O and the
// two latents' norm scales.
uint64_t mla_parameters(const config::ModelSpec& m) {
  const config::MlaSpec& a = *m.mla;
  const uint64_t h = m.heads;
  return m.d_model * a.q_rank + a.q_rank * h * a.qk_dim() + m.d_model * a.cache_width() +
         a.kv_rank * h * (a.nope_dim + a.v_dim) + h * a.v_dim * m.d_model;
}

uint64_t attention_parameters(const config::ModelSpec& m) {
  if (m.mla)
    return mla_parameters(m);
  const uint64_t q = uint64_t{m.heads} * m.head_dim;
  const uint64_t kv = uint64_t{m.kv_heads} * m.head_dim;
  return m.d_model * (q + 2 * kv) + q * m.d_model;
}

uint64_t ffn_parameters(const config::ModelSpec& m, uint64_t width) {
  return (m.gated_ffn ? 3 : 2) * m.d_model * width;
}

// FFN parameters of one layer: all of them, or those one token uses.
uint64_t layer_ffn_parameters(const config::ModelSpec& m, uint32_t layer, bool active_only) {
  if (!m.is_moe_layer(layer))
    return ffn_parameters(m, m.ffn_dim);
  const config::MoeSpec& moe = *m.moe;
  const uint64_t routed = active_only ? moe.experts_per_token : moe.experts;
  return m.d_model * moe.experts + routed * ffn_parameters(m, moe.expert_ffn_dim) +
         moe.shared_experts * ffn_parameters(m, moe.expert_ffn_dim);
}

}  // namespace

uint64_t parameter_count(const config::ModelSpec& m) {
  const uint64_t table = m.vocab * m.d_model;
  uint64_t total = table + m.d_model + (m.tied_embeddings ? 0 : table);
  const uint64_t latent_norms = m.mla ? uint64_t{m.mla->q_rank} + m.mla->kv_rank : 0;
  for (uint32_t l = 0; l < m.layers; ++l)
    total +=
        attention_parameters(m) + layer_ffn_parameters(m, l, false) + 2 * m.d_model + latent_norms;
  return total;
}

uint64_t active_layer_parameters(const config::ModelSpec& m) {
  uint64_t total = 0;
  for (uint32_t l = 0; l < m.layers; ++l)
    total += attention_parameters(m) + layer_ffn_parameters(m, l, true);
  return total;
}

uint64_t step_tokens(const config::ScenarioSpec& s) {
  return s.phase == config::Phase::kDecode ? uint64_t{s.batch} : uint64_t{s.batch} * s.prompt_len;
}

double model_flops(const config::ServingSpec& serving) {
  const config::ModelSpec& m = serving.model;
  const config::ScenarioSpec& s = serving.scenario;
  const bool decode = s.phase == config::Phase::kDecode;
  const double q = decode ? 1.0 : static_cast<double>(s.prompt_len);
  const double kv_len = static_cast<double>(s.context_len) + q;
  const double pairs = q * (kv_len - q) + q * (q + 1) / 2;
  const double batch = s.batch;
  const double sampled = batch;  // one token per sequence, decode and prefill alike
  // QK^T over the query/key width and PV over the value width, per head; with
  // mla those of the materialised form, whatever form the lowering runs.
  const double score_and_value =
      m.mla ? static_cast<double>(m.mla->qk_dim() + m.mla->v_dim) : 2.0 * m.head_dim;
  return 2.0 * static_cast<double>(active_layer_parameters(m)) *
             static_cast<double>(step_tokens(s)) +
         2.0 * static_cast<double>(m.d_model) * static_cast<double>(m.vocab) * sampled +
         2.0 * m.layers * m.heads * score_and_value * pairs * batch;
}

}  // namespace podsim::workload
