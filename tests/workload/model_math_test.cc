// Parameter counts and model FLOPs against the published LLaMA 3 sizes and
// hand-derived formulas.
#include "workload/model_math.h"

#include <gtest/gtest.h>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

using testing::llama3_70b;
using testing::llama3_8b;

// Counted from the architecture, term by term: embedding and LM head
// (untied), per layer Q (d x H hd), K and V (d x K hd each), O (H hd x d), a
// SwiGLU FFN (3 x d x F) and two norm scales, and the final norm.
double llama_parameters(const config::ModelSpec& m) {
  const double d = static_cast<double>(m.d_model);
  const double hd = m.head_dim;
  const double per_layer = d * m.heads * hd + 2 * d * m.kv_heads * hd + m.heads * hd * d +
                           3 * d * static_cast<double>(m.ffn_dim) + 2 * d;
  return 2 * static_cast<double>(m.vocab) * d + m.layers * per_layer + d;
}

TEST(ModelMath, Llama3ParameterCountsMatchThePublishedSizes) {
  EXPECT_NEAR(llama_parameters(llama3_8b()), 8.03e9, 0.01 * 8.03e9);
  EXPECT_NEAR(llama_parameters(llama3_70b()), 70.6e9, 0.01 * 70.6e9);
  EXPECT_EQ(static_cast<double>(parameter_count(llama3_8b())), llama_parameters(llama3_8b()));
  EXPECT_EQ(static_cast<double>(parameter_count(llama3_70b())), llama_parameters(llama3_70b()));
}

TEST(ModelMath, TiedEmbeddingsCountTheTableOnce) {
  config::ModelSpec m = llama3_8b();
  m.tied_embeddings = true;
  EXPECT_EQ(parameter_count(llama3_8b()) - parameter_count(m), 128256ull * 4096);
}

// Decode FLOPs per token = 2 x (every parameter but the embedding lookup
// table, which does no arithmetic) + the attention term 4 x layers x heads x
// head_dim x kv_len.
TEST(ModelMath, DecodeFlopsPerTokenAreTwiceTheParametersPlusAttention) {
  for (const config::ModelSpec& m : {llama3_8b(), llama3_70b()}) {
    const uint32_t context = 2047;
    const Program p = lower(testing::decode(m, 8, context), testing::mesh({}));
    const double table = static_cast<double>(m.vocab) * static_cast<double>(m.d_model);
    const double attention = 4.0 * m.layers * m.heads * m.head_dim * (context + 1);
    const double expected = 2 * (llama_parameters(m) - table) + attention;
    EXPECT_EQ(p.tokens, 8u);
    EXPECT_NEAR(p.model_flops / 8, expected, 0.02 * expected) << m.name;
  }
}

// Prefill: causal attention scores L (L + 1) / 2 pairs per sequence and head
// from an empty cache; the LM head runs for the last token of each sequence.
TEST(ModelMath, PrefillCountsCausalAttentionAndOneSampledTokenPerSequence) {
  const config::ModelSpec m = llama3_8b();
  const double len = 4096;
  const double batch = 2;
  const config::ServingSpec s = testing::prefill(m, 2, 4096);
  const double d = 4096;
  const double layer_params = d * 32 * 128 * 2 + 2 * d * 8 * 128 + 3 * d * 14336;
  const double expected = 2 * 32 * layer_params * batch * len + 2 * d * 128256 * batch +
                          4.0 * 32 * 32 * 128 * batch * len * (len + 1) / 2;
  EXPECT_DOUBLE_EQ(model_flops(s), expected);
  EXPECT_EQ(step_tokens(s.scenario), 8192u);
}

// MoE: a token uses the router, k routed experts and the shared experts.
TEST(ModelMath, MoeActiveParametersCountTopKExperts) {
  const config::ModelSpec m = testing::small_moe();
  const double d = 1024;
  const double attention = 4 * d * 16 * 64;
  const double dense = 3 * d * 2048;
  const double moe = d * 16 + (2 + 1) * 3 * d * 512;
  EXPECT_EQ(static_cast<double>(active_layer_parameters(m)), 4 * attention + dense + 3 * moe);
  const double all_moe = d * 16 + (16 + 1) * 3 * d * 512;
  EXPECT_EQ(static_cast<double>(parameter_count(m)),
            2 * 32768 * d + d + 4 * (attention + 2 * d) + dense + 3 * all_moe);
}

}  // namespace
}  // namespace podsim::workload
