// The serving steps in workloads/: each model as published, a decode and a
// prefill file per model, the layouts the docs promise, and a sharding that
// fits the HBM of the pod its header names. Every expectation here is
// computed from the architecture independently of the loader and the
// lowering.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using testing::load_shipped_workload;
using testing::ShippedWorkload;

// Each serving workload: its model's published parameter count and the
// pod it is written for.
struct Expected {
  std::string model;
  double total_params;  // as published
  std::string pod;
};

const std::map<std::string, Expected>& expected() {
  // [L3] Dubey et al. 2024 (8.03e9, 70.6e9, 405e9); [MX] Mistral's 46.7e9
  // total for Mixtral 8x7B; [DS] DeepSeek-V3 671e9 (with multi-head latent
  // attention, 671.03e9); [PaLM] Chowdhery et al. 2022 (62B: 62.5e9 from
  // its Table 1 shapes).
  static const std::map<std::string, Expected> kExpected = {
      {"llama3-8b-decode-v5e", {"LLaMA-3-8B", 8.03e9, "tpu-v5e-4x4"}},
      {"llama3-8b-prefill-v5e", {"LLaMA-3-8B", 8.03e9, "tpu-v5e-4x4"}},
      {"llama3-8b-generation-v5e", {"LLaMA-3-8B", 8.03e9, "tpu-v5e-4x4"}},
      {"llama3-70b-decode-v5e", {"LLaMA-3-70B", 70.6e9, "tpu-v5e-16x16"}},
      {"llama3-70b-prefill-v5e", {"LLaMA-3-70B", 70.6e9, "tpu-v5e-16x16"}},
      {"llama3-8b-decode-v6e", {"LLaMA-3-8B", 8.03e9, "tpu-v6e-16x16"}},
      {"llama3-8b-prefill-v6e", {"LLaMA-3-8B", 8.03e9, "tpu-v6e-16x16"}},
      {"llama3-70b-decode-tpu7x", {"LLaMA-3-70B", 70.6e9, "tpu7x-4x4x4"}},
      {"llama3-70b-prefill-tpu7x", {"LLaMA-3-70B", 70.6e9, "tpu7x-4x4x4"}},
      {"llama3-405b-decode-v4", {"LLaMA-3-405B", 405e9, "tpu-v4-16x16x16"}},
      {"llama3-405b-prefill-v4", {"LLaMA-3-405B", 405e9, "tpu-v4-16x16x16"}},
      {"palm-62b-decode-v4", {"PaLM-62B", 62.5e9, "tpu-v4-4x4x4"}},
      {"mixtral-8x7b-decode-v5e", {"Mixtral-8x7B-like", 46.7e9, "tpu-v5e-4x4"}},
      {"mixtral-8x7b-prefill-v5e", {"Mixtral-8x7B-like", 46.7e9, "tpu-v5e-4x4"}},
      {"deepseek-v3-decode-v5p", {"DeepSeek-V3", 671e9, "tpu-v5p-8x16x16-twisted"}},
      {"deepseek-v3-prefill-v5p", {"DeepSeek-V3", 671e9, "tpu-v5p-4x4x4"}},
  };
  return kExpected;
}

double bytes_of(DType t) {
  switch (t) {
    case DType::kFp32:
      return 4;
    case DType::kBf16:
      return 2;
    case DType::kFp8:
    case DType::kInt8:
      return 1;
    case DType::kInt4:
      return 0.5;
  }
  return 2;
}

uint64_t product(const ShippedWorkload& s, const std::vector<std::string>& axes) {
  uint64_t chips = 1;
  for (const std::string& name : axes) {
    for (const MeshAxisDecl& axis : s.workload.mesh) {
      if (axis.name != name)
        continue;
      for (uint32_t d : axis.dims)
        chips *= d == kSliceDimIndex ? s.pod.slices : s.pod.torus.dims.at(d).size;
    }
  }
  return chips;
}

// Parameters per layer, by part (gated FFNs have three matrices).
struct LayerParams {
  double attention;  // Q, K, V, O
  double dense_ffn;
  double expert;  // one expert
};

// Multi-head latent attention [DS 2.1.1]: W_DQ, W_UQ, W_DKV (latent and
// RoPE key), W_UK, W_UV, W_O; split is the part split by heads over t chips.
double mla_params(const ModelSpec& m, double t, bool split_only) {
  const MlaSpec& a = *m.mla;
  const double d = static_cast<double>(m.d_model);
  const double h = m.heads / t;
  const double split = a.q_rank * h * (a.nope_dim + a.rope_dim) +
                       a.kv_rank * h * (a.nope_dim + a.v_dim) + h * a.v_dim * d;
  return split + (split_only ? 0 : d * (a.q_rank + a.kv_rank + a.rope_dim));
}

LayerParams layer_params(const ModelSpec& m) {
  const double d = static_cast<double>(m.d_model);
  const double matrices = m.gated_ffn ? 3 : 2;
  return {m.mla ? mla_params(m, 1, false)
                : 2 * d * m.heads * m.head_dim + 2 * d * m.kv_heads * m.head_dim,
          matrices * d * static_cast<double>(m.ffn_dim),
          m.moe ? matrices * d * static_cast<double>(m.moe->expert_ffn_dim) : 0};
}

double total_params(const ModelSpec& m) {
  const LayerParams p = layer_params(m);
  double total = (m.tied_embeddings ? 1 : 2) * static_cast<double>(m.vocab * m.d_model);
  for (uint32_t layer = 0; layer < m.layers; ++layer) {
    total += p.attention;
    total += m.is_moe_layer(layer) ? (m.moe->experts + m.moe->shared_experts) * p.expert +
                                         static_cast<double>(m.d_model) * m.moe->experts
                                   : p.dense_ffn;
  }
  return total;
}

// Bytes one chip holds at the peak of the step: weights (split over the
// tensor chips T, experts also over the expert chips E, layers over the
// pipeline stages P; K and V of one KV head per chip when there are fewer KV
// heads than T; with a pipeline, one of the embedding and LM head per
// stage), one gathered layer or embedding table for weight-gathered layouts,
// and the KV cache (every token of the sequences the chip holds, for the KV
// heads it holds). Activations are left out: a margin covers them.
double bytes_per_chip(const ShippedWorkload& s) {
  const ServingSpec& sv = *s.workload.serving;
  const ModelSpec& m = sv.model;
  const double t = static_cast<double>(product(s, sv.sharding.tensor_axes));
  const double e = static_cast<double>(product(s, sv.sharding.expert_axes));
  const double d = static_cast<double>(product(s, sv.sharding.data_axes));
  const uint64_t p =
      sv.sharding.pipeline_axis.empty() ? 1 : product(s, {sv.sharding.pipeline_axis});
  const LayerParams lp = layer_params(m);
  const double dm = static_cast<double>(m.d_model);
  const double kv_per_chip = m.kv_heads >= t ? m.kv_heads / t : 1;
  // With mla the down projections are on every tensor chip.
  const double attention =
      m.mla ? mla_params(m, t, true) + dm * (m.mla->q_rank + m.mla->kv_rank + m.mla->rope_dim)
            : 2 * dm * m.heads * m.head_dim / t + 2 * dm * kv_per_chip * m.head_dim;
  double params = 0;
  for (uint32_t layer = 0; layer < m.layers / p; ++layer) {  // the first stage
    params += attention;
    params += m.is_moe_layer(layer) ? (m.moe->experts / e + m.moe->shared_experts) * lp.expert / t +
                                          dm * m.moe->experts
                                    : lp.dense_ffn / t;
  }
  const double table = static_cast<double>(m.vocab) * dm;
  params += (p > 1 || m.tied_embeddings ? 1 : 2) * table / t;
  double bytes = params * bytes_of(m.weight_dtype);
  if (sv.sharding.weight_gathered)
    bytes += std::max(lp.attention + lp.dense_ffn, table) * bytes_of(m.weight_dtype);

  const ScenarioSpec& sc = sv.scenario;
  // A generation's cache is largest at its last decode step.
  const double tokens = sc.context_len + (sc.phase == Phase::kPrefill ? sc.prompt_len : 1.0) +
                        (sc.is_generation() ? sc.output_len - 1.0 : 0.0);
  const double sequences = sc.batch / d;
  const bool by_batch = sv.sharding.kv_layout == KvLayout::kByBatch || sv.sharding.weight_gathered;
  const double kv_bytes =
      by_batch ? (sequences / t) * m.kv_heads : sequences * kv_per_chip;  // sequence x KV heads
  if (m.mla) {  // one latent and RoPE key per token, whole on every tensor chip by heads
    const double seqs = by_batch ? sequences / t : sequences;
    bytes += seqs * tokens * static_cast<double>(m.mla->kv_rank + m.mla->rope_dim) *
             (m.layers / p) * bytes_of(m.kv_dtype);
    return bytes;
  }
  bytes += kv_bytes * tokens * 2 * m.head_dim * (m.layers / p) * bytes_of(m.kv_dtype);
  return bytes;
}

std::vector<std::string> serving_files() {
  std::vector<std::string> names;
  for (const auto& [name, unused] : expected())
    names.push_back(name);
  return names;
}

TEST(ShippedServingWorkloadsTest, EveryModelHasADecodeAndAPrefillFile) {
  size_t serving = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_dir() / "workloads")) {
    if (entry.is_directory())
      continue;
    const std::string text = read_file_to_string(entry.path());
    if (text.find("\nmodel {") == std::string::npos)
      continue;
    ++serving;
    EXPECT_TRUE(expected().contains(entry.path().stem().string())) << entry.path();
  }
  EXPECT_EQ(serving, expected().size());
}

TEST(ShippedServingWorkloadsTest, ModelsAreAsPublished) {
  for (const std::string& name : serving_files()) {
    SCOPED_TRACE(name);
    const ShippedWorkload s = load_shipped_workload(name + ".textproto");
    ASSERT_TRUE(s.workload.serving.has_value());
    const Expected& want = expected().at(name);
    EXPECT_EQ(s.pod.name, want.pod);
    EXPECT_EQ(s.workload.serving->model.name, want.model);
    EXPECT_NEAR(total_params(s.workload.serving->model) / want.total_params, 1.0, 0.01);
    EXPECT_EQ(s.workload.serving->scenario.phase,
              name.find("-decode-") != std::string::npos ? Phase::kDecode : Phase::kPrefill);
    EXPECT_EQ(s.workload.serving->scenario.is_generation(),
              name.find("-generation-") != std::string::npos);
    // Every model number cites where it comes from.
    EXPECT_NE(read_file_to_string(testing::source_dir() / "workloads" / (name + ".textproto"))
                  .find("  source: \""),
              std::string::npos);
  }
}

TEST(ShippedServingWorkloadsTest, MixtralActiveParametersAsPublished) {
  // 12.9e9 parameters per token [MX, Mistral]: attention, 2 of 8 experts, embeddings.
  const ModelSpec m =
      load_shipped_workload("mixtral-8x7b-decode-v5e.textproto").workload.serving->model;
  const LayerParams p = layer_params(m);
  const double active =
      m.layers * (p.attention + m.moe->experts_per_token * p.expert) + 2.0 * m.vocab * m.d_model;
  EXPECT_NEAR(active / 12.9e9, 1.0, 0.01);
}

TEST(ShippedServingWorkloadsTest, EveryShardingFitsItsPodsHbm) {
  for (const std::string& name : serving_files()) {
    SCOPED_TRACE(name);
    const ShippedWorkload s = load_shipped_workload(name + ".textproto");
    const double hbm = static_cast<double>(s.pod.chip.hbm_bytes);
    // 10% of HBM left for activations and the compiler's scratch.
    EXPECT_LT(bytes_per_chip(s), 0.9 * hbm) << bytes_per_chip(s) / 1e9 << " GB";
  }
}

TEST(ShippedServingWorkloadsTest, EveryLayoutIsShownSomewhere) {
  std::set<std::string> shown;
  for (const std::string& name : serving_files()) {
    const ServingSpec s = *load_shipped_workload(name + ".textproto").workload.serving;
    if (s.sharding.tensor_axes.size() == 1)
      shown.insert("1D tensor");
    if (s.sharding.tensor_axes.size() == 2)
      shown.insert("2D tensor");
    if (s.sharding.tensor_collective == TensorCollective::kReduceScatterAllGather)
      shown.insert("reduce-scatter + all-gather");
    if (s.sharding.weight_gathered)
      shown.insert("weight-gathered");
    if (s.sharding.kv_layout == KvLayout::kByBatch)
      shown.insert("KV by batch");
    if (!s.sharding.expert_axes.empty())
      shown.insert("expert parallelism");
    if (!s.sharding.data_axes.empty())
      shown.insert("replicas");
    if (!s.sharding.pipeline_axis.empty() && s.scenario.micro_batches > 1)
      shown.insert("pipeline with micro-batches");
    if (s.model.weight_dtype == DType::kInt8)
      shown.insert("int8 weights");
  }
  EXPECT_THAT(shown, ::testing::UnorderedElementsAre(
                         "1D tensor", "2D tensor", "reduce-scatter + all-gather", "weight-gathered",
                         "KV by batch", "expert parallelism", "replicas",
                         "pipeline with micro-batches", "int8 weights"));
}

TEST(ShippedServingWorkloadsTest, TheSpeedTargetRunsOnTheWholeV4Pod) {
  const ShippedWorkload s = load_shipped_workload("llama3-405b-decode-v4.textproto");
  EXPECT_EQ(s.pod.chip_count(), 4096u);
  EXPECT_EQ(s.workload.serving->scenario.phase, Phase::kDecode);
  const ShardingSpec& sh = s.workload.serving->sharding;
  EXPECT_EQ(product(s, sh.tensor_axes) * product(s, sh.data_axes), 4096u);
}

}  // namespace
}  // namespace podsim::config
