// The workload compiled into podsim: it is exactly
// workloads/llama3-70b-decode-v5e.textproto, it loads on the default pod,
// and it holds LLaMA-3-70B as published.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;

const std::filesystem::path kShippedFile = "workloads/llama3-70b-decode-v5e.textproto";

TEST(DefaultWorkloadTest, IsTheShippedFile) {
  EXPECT_EQ(default_workload_text(), read_file_to_string(testing::source_dir() / kShippedFile));
}

TEST(DefaultWorkloadTest, IsWrittenForTheDefaultPod) {
  EXPECT_EQ(default_workload_topology_name(), default_topology().name);
  // The file's own header names the topology file the default pod embeds.
  EXPECT_EQ(testing::topology_header(testing::source_dir() / kShippedFile),
            "topologies/v5e-16x16.textproto");
}

TEST(DefaultWorkloadTest, LoadsOnTheDefaultPod) {
  const WorkloadSpec spec = default_workload(default_topology());
  EXPECT_EQ(spec.name, "llama3-70b-decode-v5e");
  EXPECT_EQ(spec.source_file, "<embedded:llama3-70b-decode-v5e>");
  EXPECT_TRUE(spec.operations.empty());
  ASSERT_TRUE(spec.serving.has_value());
  WorkloadSpec from_file =
      load_workload_file(testing::source_dir() / kShippedFile, default_topology());
  from_file.source_file = spec.source_file;
  EXPECT_EQ(spec, from_file);
}

TEST(DefaultWorkloadTest, HoldsLlama3_70BAsPublished) {
  // Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3, and Meta's
  // config.json for the vocabulary: typed here independently of the file.
  const ModelSpec m = default_workload(default_topology()).serving->model;
  EXPECT_EQ(m.layers, 80u);
  EXPECT_EQ(m.d_model, 8192u);
  EXPECT_EQ(m.ffn_dim, 28672u);
  EXPECT_EQ(m.heads, 64u);
  EXPECT_EQ(m.kv_heads, 8u);
  EXPECT_EQ(m.head_dim, 128u);
  EXPECT_EQ(m.vocab, 128256u);
  EXPECT_TRUE(m.gated_ffn);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.moe.has_value());
  EXPECT_EQ(m.weight_dtype, DType::kBf16);
}

TEST(DefaultWorkloadTest, DecodesWithTensorParallelismAlongXAndReplicasAlongY) {
  const PodSpec pod = default_topology();
  const WorkloadSpec spec = default_workload(pod);
  EXPECT_EQ(spec.mesh, (std::vector<MeshAxisDecl>{{"model", {0}}, {"data", {1}}}));
  const ServingSpec& s = *spec.serving;
  EXPECT_EQ(s.scenario.phase, Phase::kDecode);
  EXPECT_EQ(s.sharding.tensor_axes, (std::vector<std::string>{"model"}));
  EXPECT_EQ(s.sharding.data_axes, (std::vector<std::string>{"data"}));
  EXPECT_TRUE(s.sharding.expert_axes.empty());
  EXPECT_TRUE(s.sharding.pipeline_axis.empty());
  EXPECT_EQ(s.scenario.batch % 16, 0u);  // whole sequences per replica
  EXPECT_GE(s.scenario.context_len, 1u);
}

TEST(DefaultWorkloadTest, OnAnotherPodItIsCheckedLikeAnyWorkload) {
  // The 4x4x2 test pod has a z dimension the default mesh leaves out.
  try {
    default_workload(testing::test_pod());
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                Contains(Field("file", &Diagnostic::file, "<embedded:llama3-70b-decode-v5e>")));
    EXPECT_THAT(e.what(), HasSubstr("dimension \"z\" (2) is in no mesh axis"));
  }
}

}  // namespace
}  // namespace podsim::config
