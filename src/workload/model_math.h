// Whole-model arithmetic, independent of sharding: parameter counts and the
// useful FLOPs of a serving step (for model FLOP utilisation).
#pragma once

#include <cstdint>

#include "config/serving_spec.h"

namespace podsim::workload {

// Every parameter: embedding table, per layer the attention projections (with
// mla W_DQ, W_UQ, W_DKV, W_UK, W_UV, W_O and the two latents' norms), the
// FFN (dense, or router + routed experts + shared experts) and two RMS norm
// scales, the final norm, and the LM head unless tied to the embedding.
uint64_t parameter_count(const config::ModelSpec& model);

// Matmul weights one token multiplies by in the whole layer stack:
// attention projections, dense FFNs, and on MoE layers the router, k routed
// experts and the shared experts. Excludes the embedding table (a lookup) and
// the LM head.
uint64_t active_layer_parameters(const config::ModelSpec& model);

// Tokens a step produces (decode: one per sequence) or processes (prefill:
// batch x prompt_len).
uint64_t step_tokens(const config::ScenarioSpec& scenario);

// Useful FLOPs of one step over the whole pod, for the model as given (its
// real heads: padded heads, sharding.pad_heads, are never counted):
//   2 x active_layer_parameters x tokens
// + 2 x d_model x vocab x sampled tokens (LM head; decode: every token,
//   prefill: the last of each sequence)
// + 4 x layers x heads x head_dim x pairs x batch (QK^T and PV), with pairs
//   = q x (kv_len - q) + q (q + 1) / 2 per sequence (causal; decode: kv_len);
//   with model.mla, 2 x layers x heads x (nope + rope + v) x pairs x batch,
//   the materialised form's, in decode too (README.md).
double model_flops(const config::ServingSpec& serving);

}  // namespace podsim::workload
