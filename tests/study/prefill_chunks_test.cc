// A prefill whose activations do not fit runs its batch in sequential chunks
// of sequences (scenario.prefill_chunks; study/prefill_chunks.h): LLaMA-3-70B
// prefill, weight-gathered over 16 chips x 16 replicas on v5e 16x16, whose
// weights and KV cache fit a 16 GB chip at 1536 prompts of 2048 tokens while
// the whole batch's activations do not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/diagnostics.h"
#include "result_support.h"

namespace podsim::study {
namespace {

using testing::analytical;
using testing::root;

// hbm_bytes: the chip's capacity, when not 0 (a smaller chip than v5e's).
podsim::Result run(const std::vector<config::Override>& overrides, bool allow_oom = false,
                   uint64_t hbm_bytes = 0) {
  config::PodSpec spec = config::load_topology_file(root() / "topologies/v5e-16x16.textproto");
  if (hbm_bytes != 0)
    spec.chip.hbm_bytes = hbm_bytes;
  const config::WorkloadSpec w = config::load_workload_file(
      root() / "workloads/llama3-70b-prefill-v5e.textproto", spec, overrides);
  const topo::Pod pod(spec);
  RunOptions o = analytical();
  o.allow_oom = allow_oom;
  return evaluate(pod, w, o);
}

TEST(PrefillChunks, ABatchWhoseActivationsDoNotFitRunsInTheFewestChunksThatFit) {
  const podsim::Result whole =
      run({{"workload.scenario.batch", "1536"}, {"workload.scenario.prefill_chunks", "1"}}, true);
  ASSERT_EQ(whole.status(), podsim::Result::ok) << whole.reason();
  const auto& wm = whole.serving().memory();
  ASSERT_FALSE(wm.fits());  // in one pass: oom
  ASSERT_LT(wm.weight_bytes() + wm.kv_cache_bytes(), wm.hbm_capacity_bytes());

  const podsim::Result chunked = run({{"workload.scenario.batch", "1536"}});
  ASSERT_EQ(chunked.status(), podsim::Result::ok) << chunked.reason();
  const auto& s = chunked.serving();
  EXPECT_EQ(chunked.inputs().serving().scenario().prefill_chunks(), 0u);  // automatic
  EXPECT_EQ(s.prefill_chunks(), 2u);
  EXPECT_EQ(s.prefill_chunk_sequences(), 48u);  // 1536 / 16 replicas / 2
  EXPECT_TRUE(s.memory().fits());
  // Every chunk keeps its KV cache; the chunks run inside each layer, so
  // every chunk's residual stream is live but only one chunk's working set:
  // whole, 48 + 48 sequences' residual (96 x 2048 tokens / 16 chips x 8192
  // x 2 bytes = 192 MiB) plus their working set; chunked, the same residual
  // plus half the working set.
  EXPECT_EQ(s.memory().kv_cache_bytes(), wm.kv_cache_bytes());
  EXPECT_EQ(s.memory().weight_bytes(), wm.weight_bytes());
  const uint64_t residual = 96ull * 2048 / 16 * 8192 * 2;
  EXPECT_EQ(s.memory().activation_peak_bytes() - residual,
            (wm.activation_peak_bytes() - residual) / 2);
  // Each layer's weights gathered once, as in one pass.
  EXPECT_EQ(s.prefill_weight_gathers(), 1u);
  EXPECT_EQ(whole.serving().prefill_weight_gathers(), 1u);
  // The same tokens and the same gathers: within 1% of one pass.
  EXPECT_EQ(s.tokens(), whole.serving().tokens());
  EXPECT_NEAR(s.step_time_us(), whole.serving().step_time_us(),
              0.01 * whole.serving().step_time_us());
}

TEST(PrefillChunks, GivenChunksAreKeptWhenTheStepFits) {
  // 64 sequences per replica; weight-gathered splits a chunk's sequences over
  // the 16 tensor chips, so 4 chunks of 16.
  const podsim::Result one = run({{"workload.scenario.batch", "1024"}});
  const podsim::Result four =
      run({{"workload.scenario.batch", "1024"}, {"workload.scenario.prefill_chunks", "4"}});
  ASSERT_EQ(one.status(), podsim::Result::ok) << one.reason();
  ASSERT_EQ(four.status(), podsim::Result::ok) << four.reason();
  EXPECT_EQ(one.serving().prefill_chunks(), 1u);
  EXPECT_EQ(one.serving().prefill_chunk_sequences(), 64u);
  EXPECT_EQ(four.serving().prefill_chunks(), 4u);
  EXPECT_EQ(four.serving().prefill_chunk_sequences(), 16u);
  EXPECT_EQ(four.serving().memory().kv_cache_bytes(), one.serving().memory().kv_cache_bytes());
  EXPECT_LT(four.serving().memory().activation_peak_bytes(),
            one.serving().memory().activation_peak_bytes());
  EXPECT_GE(four.serving().step_time_us(), one.serving().step_time_us() * (1 - 1e-9));
}

// 1536 prompts, 96 per replica, in chunks of a multiple of 16: K = 2, 3 or
// 6. One gather per layer keeps every chunk's residual stream live (R = 192
// MiB per chip), so it needs R + S/K over the weights and KV cache (S, the
// one-pass working set); a gather per chunk needs R/K + S/K. On a chip with
// room for R/6 + S/6 but not R + S/6, only 6 chunks gathering per chunk fit.
TEST(PrefillChunks, GathersPerChunkOnlyWhenOnePerLayerFitsAtNoChunkCount) {
  const podsim::Result whole =
      run({{"workload.scenario.batch", "1536"}, {"workload.scenario.prefill_chunks", "1"}}, true);
  ASSERT_EQ(whole.status(), podsim::Result::ok) << whole.reason();
  const auto& wm = whole.serving().memory();
  const uint64_t residual = 96ull * 2048 / 16 * 8192 * 2;
  const uint64_t working_set = wm.activation_peak_bytes() - residual;
  const uint64_t base = wm.weight_bytes() + wm.kv_cache_bytes();
  const uint64_t capacity = base + residual / 2 + working_set / 6;

  const podsim::Result r = run({{"workload.scenario.batch", "1536"}}, false, capacity);
  ASSERT_EQ(r.status(), podsim::Result::ok) << r.reason();
  const auto& s = r.serving();
  EXPECT_EQ(s.prefill_chunks(), 6u);
  EXPECT_EQ(s.prefill_weight_gathers(), 6u);
  EXPECT_EQ(s.memory().activation_peak_bytes(), residual / 6 + working_set / 6);
  EXPECT_TRUE(s.memory().fits());
  // Six gathers of every layer move six times the weight bytes: slower than
  // the same six chunks gathering once (which does not fit this chip).
  const podsim::Result once =
      run({{"workload.scenario.batch", "1536"}, {"workload.scenario.prefill_chunks", "6"}}, true,
          capacity);
  ASSERT_EQ(once.status(), podsim::Result::ok) << once.reason();
  EXPECT_FALSE(once.serving().memory().fits());
  EXPECT_EQ(once.serving().prefill_weight_gathers(), 1u);
  EXPECT_GT(s.step_time_us(), once.serving().step_time_us());
}

TEST(PrefillChunks, WeightsAndKvCacheThatDoNotFitStayOom) {
  // 2048 prompts: weights and KV cache alone are 15.9 of 16 GB, and no chunk
  // the weight-gathered layout can split (a multiple of 16 sequences) fits.
  const podsim::Result r = run({{"workload.scenario.batch", "2048"}});
  EXPECT_EQ(r.status(), podsim::Result::oom);
  EXPECT_NE(r.reason().find("does not fit in HBM"), std::string::npos) << r.reason();
  EXPECT_EQ(r.serving().prefill_chunks(), 1u);
}

TEST(PrefillChunks, ChunksMustSplitTheReplicasSequencesAndArePrefillOnly) {
  try {
    run({{"workload.scenario.prefill_chunks", "3"}});
    ADD_FAILURE() << "3 chunks of 16 sequences loaded";
  } catch (const config::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("scenario.prefill_chunks: the 16 sequences of each "
                                         "replica do not split into 3 equal chunks"),
              std::string::npos)
        << e.what();
  }
  const config::PodSpec spec =
      config::load_topology_file(root() / "topologies/v5e-16x16.textproto");
  try {
    config::load_workload_file(root() / "workloads/llama3-70b-decode-v5e.textproto", spec,
                               {{"workload.scenario.prefill_chunks", "2"}});
    ADD_FAILURE() << "a chunked decode loaded";
  } catch (const config::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("scenario.prefill_chunks: only PREFILL runs in chunks"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace podsim::study
