// The enumeration: which sharding families it reaches (among candidates the
// loader accepts), the default batch sizes, and a fixed order.
#include "search/space.h"

#include <gtest/gtest.h>

#include <set>

#include "config/serving_candidate.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "shipped.h"

namespace podsim::search {
namespace {

config::PodSpec slice(const std::string& name) {
  return config::load_topology_file(testing::source_dir() / "topologies" / name);
}

config::ServingModel model(const std::string& name) {
  return config::ServingModel::load(testing::source_dir() / "workloads" / name);
}

// The families of every candidate the loader accepts on `pod`.
std::set<std::string> valid_families(const config::ServingModel& m, const config::PodSpec& pod,
                                     const SpaceOptions& options, size_t* valid = nullptr,
                                     size_t* total = nullptr) {
  std::set<std::string> out;
  const std::vector<Candidate> all = enumerate(pod, 0, m.spec(), options);
  size_t ok = 0;
  for (const Candidate& c : all) {
    try {
      config::parse_workload_text(m.workload_text(c.workload, ""), "<candidate>", pod);
    } catch (const config::InputError&) {
      continue;
    }
    ++ok;
    for (const std::string& f : families(c.workload))
      out.insert(f);
  }
  if (valid != nullptr)
    *valid = ok;
  if (total != nullptr)
    *total = all.size();
  return out;
}

TEST(SearchSpace, DenseModelReachesEveryDenseFamily) {
  SpaceOptions o;
  o.context_len = 1024;
  size_t valid = 0;
  size_t total = 0;
  const std::set<std::string> found = valid_families(model("llama3-8b-decode-v5e.textproto"),
                                                     slice("v5e-4x4.textproto"), o, &valid, &total);
  EXPECT_EQ(found, (std::set<std::string>{"data", "data-multi-dim", "kv-by-batch", "micro-batches",
                                          "pipeline", "reduce-scatter-all-gather", "tensor-1d",
                                          "tensor-2d", "tensor-multi-dim", "weight-gathered"}));
  // Some candidates break the loader's rules (a batch of 1 over replicas):
  // the enumeration leaves them to the loader.
  EXPECT_GT(valid, 0u);
  EXPECT_LT(valid, total);
}

TEST(SearchSpace, MoeModelAddsExpertFamilies) {
  SpaceOptions o;
  o.context_len = 1024;
  o.batches = {64};
  const std::set<std::string> found =
      valid_families(model("mixtral-8x7b-decode-v5e.textproto"), slice("v5e-4x4.textproto"), o);
  EXPECT_TRUE(found.contains("expert"));
  EXPECT_TRUE(found.contains("expert-on-data"));
}

TEST(SearchSpace, SlicesJoinedByTheDcnAreADataOrPipelineAxis) {
  SpaceOptions o;
  o.context_len = 1024;
  o.batches = {512};
  const std::set<std::string> found = valid_families(model("llama3-8b-decode-v5e.textproto"),
                                                     slice("v5e-16x16-x2-dcn.textproto"), o);
  EXPECT_TRUE(found.contains("dcn"));
  EXPECT_TRUE(found.contains("pipeline"));
}

// LLaMA-3-8B at context 1024, decode: KV per sequence = 32 layers x 1025
// tokens x 2 x 8 KV heads x 128 x 2 bytes = 134348800 bytes; a 2x2 slice
// holds 4 x 16e9 = 64e9 bytes: 476 sequences, so powers of two up to 256.
TEST(SearchSpace, DefaultBatchesStopWhereTheKvCacheOutgrowsTheSlice) {
  SpaceOptions o;
  o.context_len = 1024;
  const auto m = model("llama3-8b-decode-v5e.textproto");
  EXPECT_EQ(default_batches(slice("v5e-2x2.textproto"), m.spec(), o),
            (std::vector<uint32_t>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  o.context_len = 1u << 23;  // one sequence does not fit: still batch 1, for the loader to judge
  EXPECT_EQ(default_batches(slice("v5e-2x2.textproto"), m.spec(), o), (std::vector<uint32_t>{1}));
}

TEST(SearchSpace, OrderIsFixedAndNamesAreUnique) {
  SpaceOptions o;
  o.context_len = 1024;
  const auto m = model("llama3-8b-decode-v5e.textproto");
  const auto a = enumerate(slice("v5e-2x2.textproto"), 3, m.spec(), o);
  const auto b = enumerate(slice("v5e-2x2.textproto"), 3, m.spec(), o);
  ASSERT_EQ(a.size(), b.size());
  std::set<std::string> names;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(m.workload_text(a[i].workload, "t"), m.workload_text(b[i].workload, "t"));
    EXPECT_EQ(a[i].slice, 3u);
    names.insert(a[i].workload.name);
  }
  EXPECT_EQ(names.size(), a.size());
}

TEST(SearchSpace, MeshLabelNamesEachAxisAndItsDimensions) {
  config::ServingCandidate c;
  c.mesh = {{"tensor", {"x", "y"}}, {"data", {"z"}}};
  EXPECT_EQ(mesh_label(c), "tensor=x+y data=z");
}

}  // namespace
}  // namespace podsim::search
