// config::ServingModel: the model of a workload file, and candidate texts the
// loader reads back as the typed values they were built from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config/serving_candidate.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "shipped.h"

namespace podsim::config {
namespace {

std::filesystem::path shipped(const std::string& rel) {
  return podsim::testing::source_dir() / rel;
}

TEST(ServingModel, CandidateTextLoadsAsTheValuesItWasBuiltFrom) {
  const ServingModel m = ServingModel::load(shipped("workloads/llama3-8b-decode-v5e.textproto"));
  EXPECT_EQ(m.spec().name, "LLaMA-3-8B");
  const PodSpec pod = load_topology_file(shipped("topologies/v5e-4x4.textproto"));
  ServingCandidate c;
  c.name = "cand";
  c.description = "test";
  c.mesh = {{"tensor", {"x"}}, {"pipeline", {"y"}}};
  c.scenario.phase = Phase::kDecode;
  c.scenario.batch = 32;
  c.scenario.context_len = 512;
  c.scenario.micro_batches = 4;
  c.sharding.tensor_axes = {"tensor"};
  c.sharding.tensor_collective = TensorCollective::kReduceScatterAllGather;
  c.sharding.kv_layout = KvLayout::kByBatch;
  c.sharding.pipeline_axis = "pipeline";
  c.sharding.pad_heads = true;  // 32 heads split over 4 chips already: written, a no-op
  const std::string text = m.workload_text(c, "topologies/v5e-4x4.textproto");
  EXPECT_EQ(text.rfind("# proto-file: podsim/workload.proto\n# proto-message: podsim.Workload\n"
                       "# topology: topologies/v5e-4x4.textproto\n",
                       0),
            0u);
  const WorkloadSpec w = parse_workload_text(text, "<t>", pod);
  ASSERT_TRUE(w.serving);
  EXPECT_EQ(w.name, "cand");
  EXPECT_EQ(w.serving->model, m.spec());
  EXPECT_EQ(w.serving->scenario, c.scenario);
  EXPECT_EQ(w.serving->sharding, c.sharding);
  ASSERT_EQ(w.mesh.size(), 2u);
  EXPECT_EQ(w.mesh[1].name, "pipeline");
}

TEST(ServingModel, FileWithoutAModelOrWithABadOneIsAnInputError) {
  try {
    ServingModel::load(shipped("workloads/matmuls-v5e-4x4.textproto"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("matmuls-v5e-4x4.textproto: model: the file has no "
                                         "serving model"),
              std::string::npos)
        << e.what();
  }
  const auto bad = std::filesystem::temp_directory_path() / "podsim-serving-model-bad.textproto";
  {
    std::ofstream f(bad);
    f << "model { name: \"m\" layers: 0 d_model: 8 heads: 2 kv_heads: 3 head_dim: 4 ffn_dim: 8 "
         "vocab: 10 }\n";
  }
  try {
    ServingModel::load(bad);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad.string() + ":1:"), std::string::npos) << what;
    EXPECT_NE(what.find("model.layers"), std::string::npos) << what;
    EXPECT_NE(what.find("model.kv_heads"), std::string::npos) << what;
  }
  std::filesystem::remove(bad);
  EXPECT_THROW(ServingModel::load(shipped("workloads/no-such-file.textproto")), InputError);
}

}  // namespace
}  // namespace podsim::config
