// Heterogeneous fleets (issue 31, acceptance 3; docs/serving.md,
// "Heterogeneous fleets"): prefill and decode replicas on different chips
// or slice shapes load, their caches move by the resharding pattern
// (fleet/kv_reshard.h) over DCN and carry exactly what the decode chips
// hold, a lone cache takes the closed-form DCN time, pairs of layouts that
// are not one cache are refused, and unified replica groups of different
// chips share one router.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "config/serve_loader.h"
#include "fleet/kv_reshard.h"
#include "fleet/serve.h"
#include "fleet/serve_output.h"

namespace podsim::fleet {
namespace hetero_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

config::ServeSpec shipped(const char* name) {
  return config::load_serve_file(source_dir() / "workloads/serve" / name);
}

// Bytes per cached token the decode replica's (one) sequence group holds,
// from its layout.
uint64_t decode_group_bytes(const config::ServeSpec& spec) {
  for (const config::ServeReplicaSpec& r : spec.replicas) {
    if (r.role == config::RoleKind::kDecode) {
      const topo::Pod pod(r.pod);
      return kv_layout(pod, r.workload).group_bytes_per_token(0);
    }
  }
  return 0;
}

TEST(HeteroFleet, TheShippedExampleMovesWhatTheDecodeChipsHold) {
  const config::ServeSpec spec = shipped("llama3-70b-hetero.serve.textproto");
  ASSERT_TRUE(spec.kv_transfer.pod.has_value());
  EXPECT_TRUE(spec.kv_transfer.chips_by_id) << "a v6e and a v5e slice are not of one topology";
  EXPECT_EQ(spec.kv_transfer.pod->slices, 3u);
  EXPECT_EQ(spec.kv_transfer.pod->torus.chip_count(), 16u);
  const uint64_t group_bytes = decode_group_bytes(spec);
  EXPECT_EQ(group_bytes, 16u * 40960) << "16 chips x one KV head of 128 x 2 x 80 layers x 2 B";
  const ServeOutput out = serve(spec);
  EXPECT_TRUE(out.run.kv_resharded);
  uint64_t tokens = 0;
  uint64_t uncontended = 0;
  for (const RequestRecord& q : out.run.requests) {
    ASSERT_TRUE(q.done);
    EXPECT_EQ(q.replica, 0u);
    EXPECT_GE(q.decode_replica, 1u);
    tokens += q.prompt_tokens;  // the cache holds the prompt when it is handed over
    // Each prefill chip sends its head's alternate layers to the two decode
    // chips holding it: 40,960 B per token over its own 3.125 GB/s DCN
    // link, then 10 us; so alone, the same time as chip i to chip i.
    const double alone_s = q.prompt_tokens * 40960.0 / 3.125e9 + 10e-6;
    EXPECT_GE(q.kv_transfer.to_s(), alone_s - 1e-9);
    uncontended += std::abs(q.kv_transfer.to_s() - alone_s) < 1e-8;
  }
  EXPECT_GT(uncontended, 150u) << "most caches move on idle links";
  EXPECT_EQ(out.run.kv_transfer_bytes, tokens * group_bytes) << "conservation";
  // The same requests moved chip i to chip i between v5e slices carry the
  // same bytes.
  const ServeOutput same = serve(shipped("llama3-70b-disaggregated.serve.textproto"));
  EXPECT_FALSE(same.run.kv_resharded);
  EXPECT_EQ(same.run.kv_transfer_bytes, out.run.kv_transfer_bytes);
  const podsim::output::ServeReport report = make_report(spec, out, nullptr);
  EXPECT_TRUE(report.kv_resharded());
  EXPECT_EQ(report.replicas(0).chip(), "TPU v6e");
  EXPECT_EQ(report.replicas(1).chip(), "TPU v5e");
}

TEST(HeteroFleet, ACacheMovesFromSixteenWayToFourWayTensorParallelInTheClosedFormTime) {
  // LLaMA-3-8B (8 KV heads of 128, 32 layers) prefilled on a v5e 4x4, 16-way
  // tensor parallel (each head on 2 chips), decoded on a v5e 2x2, 4-way
  // (2 heads a chip). Decode chip d holds heads 2d and 2d + 1: 64 layer-units
  // of 512 B per token, each head's layers alternately from its 2 holders,
  // so 4 prefill chips send it 8,192 B per token each and its one DCN down
  // link carries 32,768 B per token: alone, a cache of n tokens takes
  // 32,768 n / 3.125 GB/s + 10 us.
  const std::string text =
      "replicas { name: \"prefill\" role: ROLE_PREFILL topology: \"topologies/v5e-4x4.textproto\" "
      "workload: \"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 4096 }\n"
      "replicas { name: \"decode\" role: ROLE_DECODE topology: \"topologies/v5e-2x2.textproto\" "
      "workload: \"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 4096 }\n"
      "arrivals { poisson { rate_per_s: 0.5 } prompt_tokens { uniform { min: 100 max: 2000 } } "
      "output_tokens { fixed: 4 } }\nrequests: 8\nseed: 5\n"
      "kv_transfer { bandwidth_gbps_per_chip: 3.125 latency_us: 10 }\n";
  const config::ServeSpec spec = config::parse_serve_text(text, "tp.serve", source_dir());
  EXPECT_TRUE(spec.kv_transfer.chips_by_id);
  EXPECT_EQ(decode_group_bytes(spec), 4u * 32768);
  const ServeOutput out = serve(spec);
  EXPECT_TRUE(out.run.kv_resharded);
  uint64_t tokens = 0;
  for (const RequestRecord& q : out.run.requests) {
    ASSERT_TRUE(q.done);
    tokens += q.prompt_tokens;
    EXPECT_NEAR(q.kv_transfer.to_s(), q.prompt_tokens * 32768.0 / 3.125e9 + 10e-6, 1e-9)
        << q.prompt_tokens << " tokens";
  }
  EXPECT_EQ(out.run.kv_transfer_bytes, tokens * 4 * 32768) << "what the decode chips hold";
}

TEST(HeteroFleet, ReshardingAFleetOfOneLayoutKeepsItsLoneTransferTimes) {
  // kv_transfer.reshard on the same-shape example: every cache moves by the
  // pattern instead of chip i to chip i; the bytes are the same and a lone
  // cache takes the same time (each chip still sends 40,960 B per token).
  config::ServeSpec spec = shipped("llama3-70b-disaggregated.serve.textproto");
  spec.max_requests = 20;
  const ServeOutput plain = serve(spec);
  spec.kv_transfer.reshard = true;
  const ServeOutput resharded = serve(spec);
  EXPECT_TRUE(resharded.run.kv_resharded);
  EXPECT_EQ(plain.run.kv_transfer_bytes, resharded.run.kv_transfer_bytes);
  ASSERT_EQ(plain.run.requests.size(), resharded.run.requests.size());
  EXPECT_EQ(plain.run.requests[0].kv_transfer.count_ps(),
            resharded.run.requests[0].kv_transfer.count_ps());
}

TEST(HeteroFleet, LayoutsOfTwoModelsAreRefusedBeforeTheFleetRuns) {
  const std::string text =
      "replicas { topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 max_tokens_per_step: 512 "
      "role: ROLE_PREFILL }\n"
      "replicas { topology: \"topologies/v5e-4x4.textproto\" workload: "
      "\"workloads/serve/llama3-70b-v5e-4x4.textproto\" max_batch: 8 max_tokens_per_step: 512 "
      "role: ROLE_DECODE }\n"
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: "
      "10 } }\nrequests: 10\nkv_transfer { bandwidth_gbps_per_chip: 2 }\n";
  const config::ServeSpec spec = config::parse_serve_text(text, "two.serve", source_dir());
  EXPECT_TRUE(spec.kv_transfer.chips_by_id);
  try {
    serve(spec);
    ADD_FAILURE() << "served two models' caches";
  } catch (const StepError& e) {
    EXPECT_NE(std::string(e.what()).find("one model's KV"), std::string::npos) << e.what();
  }
}

TEST(HeteroFleet, UnifiedReplicasOfTwoChipsShareOneRouter) {
  const std::string text =
      "replicas { name: \"v5e\" topology: \"topologies/v5e-4x4.textproto\" workload: "
      "\"workloads/serve/llama3-70b-v5e-4x4.textproto\" max_batch: 32 max_tokens_per_step: 2048 "
      "scheduler: CHUNKED_PREFILL }\n"
      "replicas { name: \"v6e\" topology: \"topologies/v6e-4x4.textproto\" workload: "
      "\"workloads/serve/llama3-70b-v5e-4x4.textproto\" max_batch: 32 max_tokens_per_step: 2048 "
      "scheduler: CHUNKED_PREFILL }\n"
      "router: LEAST_OUTSTANDING_TOKENS\n"
      "arrivals { poisson { rate_per_s: 4 } prompt_tokens { fixed: 512 } output_tokens { fixed: "
      "64 } }\nrequests: 200\nseed: 1\n";
  const config::ServeSpec spec = config::parse_serve_text(text, "mixed.serve", source_dir());
  EXPECT_FALSE(spec.kv_transfer.pod.has_value()) << "no prefill or decode roles";
  const ServeOutput out = serve(spec);
  ASSERT_EQ(out.run.replicas.size(), 2u);
  EXPECT_EQ(out.summary.completed, 200u);
  // The v6e replica's steps are faster (its HBM is twice the v5e's), so it
  // drains its outstanding tokens sooner and the router sends it more.
  EXPECT_GT(out.summary.replicas[1].requests, out.summary.replicas[0].requests);
}

}  // namespace hetero_test
}  // namespace podsim::fleet
