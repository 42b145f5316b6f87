// workload::ProgramCache: a kept program is the one lower() builds, equal
// arguments share it, anything that differs is lowered anew, the least
// recently used entry goes first, and errors are thrown, never kept.
#include "workload/program_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

config::ShardingSpec tensor_x() {
  config::ShardingSpec s;
  s.tensor_axes = {"x"};
  return s;
}

TEST(ProgramCache, KeptProgramIsWhatLowerBuilds) {
  ProgramCache cache;
  const auto spec = testing::decode(testing::llama3_8b(), 8, 1000, tensor_x());
  const auto mesh = testing::mesh({{"x", 4}});
  const auto first = cache.lower(spec, mesh);
  const auto second = cache.lower(spec, mesh);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(cache.misses(), 1U);
  EXPECT_EQ(cache.hits(), 1U);
  EXPECT_EQ(testing::fingerprint(*second), testing::fingerprint(lower(spec, mesh)));
}

TEST(ProgramCache, AnyDifferenceLowersAnew) {
  ProgramCache cache;
  const auto spec = testing::decode(testing::llama3_8b(), 8, 1000, tensor_x());
  const auto mesh = testing::mesh({{"x", 4}});
  const auto base = cache.lower(spec, mesh);

  auto batch = spec;
  batch.scenario.batch = 16;
  auto model = spec;
  model.model.kv_dtype = config::DType::kInt8;
  auto sharding = spec;
  sharding.sharding.overlap_collectives = false;
  for (const auto& other : {batch, model, sharding}) {
    const auto p = cache.lower(other, mesh);
    EXPECT_NE(p.get(), base.get());
    EXPECT_EQ(testing::fingerprint(*p), testing::fingerprint(lower(other, mesh)));
  }
  // Same spec, another mesh: a different program.
  const auto wider = testing::mesh({{"x", 8}});
  const auto p = cache.lower(spec, wider);
  EXPECT_NE(p.get(), base.get());
  EXPECT_EQ(testing::fingerprint(*p), testing::fingerprint(lower(spec, wider)));
  EXPECT_EQ(cache.misses(), 5U);
  EXPECT_EQ(cache.hits(), 0U);
}

TEST(ProgramCache, DropsTheLeastRecentlyUsed) {
  ProgramCache cache(2);
  const auto mesh = testing::mesh({{"x", 4}});
  auto at = [](uint32_t batch) {
    return testing::decode(testing::llama3_8b(), batch, 100, tensor_x());
  };
  const auto p8 = cache.lower(at(8), mesh);
  cache.lower(at(16), mesh);
  EXPECT_EQ(cache.lower(at(8), mesh).get(), p8.get());  // 8 is now the most recent
  cache.lower(at(32), mesh);                            // drops 16
  EXPECT_EQ(cache.lower(at(8), mesh).get(), p8.get());
  const size_t misses = cache.misses();
  cache.lower(at(16), mesh);  // lowered again
  EXPECT_EQ(cache.misses(), misses + 1);
  // A dropped program still in use stays valid.
  EXPECT_EQ(testing::fingerprint(*p8), testing::fingerprint(lower(at(8), mesh)));
}

TEST(ProgramCache, ErrorsAreThrownAndNotKept) {
  ProgramCache cache;
  const auto spec = testing::decode(testing::llama3_70b(), 48, 10, tensor_x());
  const auto mesh = testing::mesh({{"x", 48}});  // 64 heads over 48 chips
  EXPECT_THROW(cache.lower(spec, mesh), ShapeError);
  EXPECT_THROW(cache.lower(spec, mesh), ShapeError);
  EXPECT_EQ(cache.misses(), 2U);
}

TEST(ProgramCache, ZeroCapacityIsRejected) {
  EXPECT_THROW(ProgramCache(0), std::invalid_argument);
}

TEST(ProgramCache, ThreadsShareOneProgramPerStep) {
  ProgramCache cache(4);
  const auto mesh = testing::mesh({{"x", 4}});
  std::vector<std::string> prints(8);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < prints.size(); ++t) {
    threads.emplace_back([&, t] {
      const auto spec = testing::decode(testing::llama3_8b(), 8 * (1 + t % 2), 100, tensor_x());
      for (int i = 0; i < 20; ++i)
        prints[t] = testing::fingerprint(*cache.lower(spec, mesh));
    });
  }
  for (auto& th : threads)
    th.join();
  for (uint32_t t = 0; t < prints.size(); ++t) {
    const auto spec = testing::decode(testing::llama3_8b(), 8 * (1 + t % 2), 100, tensor_x());
    EXPECT_EQ(prints[t], testing::fingerprint(lower(spec, mesh)));
  }
  EXPECT_EQ(cache.hits() + cache.misses(), 160U);
}

}  // namespace
}  // namespace podsim::workload
