// config/serve_loader.h and config/trace_loader.h: serve files and trace
// CSVs load into typed specs; bad ones name the file, the field or line, and
// the problem.
#include "config/serve_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/topology_loader.h"
#include "config/trace_loader.h"
#include "config/workload_loader.h"

namespace podsim::config {
namespace serve_loader_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ServeLoader, LoadsTheShippedExamples) {
  const ServeSpec a =
      load_serve_file(source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto");
  EXPECT_EQ(a.replicas.size(), 1u);
  EXPECT_EQ(a.replicas[0].scheduler, SchedulerKind::kChunkedPrefill);
  EXPECT_TRUE(a.replicas[0].workload.serving.has_value());
  EXPECT_EQ(a.arrivals.kind, ArrivalKind::kTrace);
  ASSERT_EQ(a.arrivals.trace.size(), 300u);
  EXPECT_EQ(a.arrivals.trace[0].arrival, sim::Time());
  EXPECT_EQ(a.arrivals.trace[0].prompt_tokens, 374u);
  EXPECT_EQ(a.arrivals.trace[0].output_tokens, 44u);
  // 18:15:50.9951690 - 18:15:46.6805900 = 4.3145790 s.
  EXPECT_EQ(a.arrivals.trace[1].arrival, sim::Time::ns(4'314'579'000));
  EXPECT_EQ(a.slo.ttft_ms, 1000);
  const ServeSpec b =
      load_serve_file(source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto");
  EXPECT_EQ(b.replicas[0].count, 2u);
  EXPECT_EQ(b.router, RouterKind::kLeastOutstandingTokens);
  EXPECT_EQ(b.arrivals.prompt.kind, LengthKind::kExponential);
  EXPECT_EQ(b.duration, sim::Time::s(60));
}

// workloads/serve/: serve files load; the replicas' workloads name their
// topology in a "# topology:" header and load against it.
TEST(ServeLoader, EveryShippedServeFileAndReplicaWorkloadLoads) {
  size_t serve_files = 0;
  size_t workloads = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() / "workloads/serve")) {
    SCOPED_TRACE(entry.path().string());
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".serve.textproto")) {
      const ServeSpec s = load_serve_file(entry.path());
      EXPECT_EQ(s.name + ".serve.textproto", name);
      EXPECT_FALSE(s.description.empty());
      ++serve_files;
    } else if (entry.path().extension() == ".textproto") {
      const std::string text = read_file_to_string(entry.path());
      const std::string key = "# topology: ";
      const size_t at = text.find(key);
      ASSERT_NE(at, std::string::npos);
      const std::string topology =
          text.substr(at + key.size(), text.find('\n', at) - at - key.size());
      const PodSpec pod = load_topology_file(source_dir() / topology);
      const WorkloadSpec w = load_workload_file(entry.path(), pod);
      EXPECT_TRUE(w.serving.has_value());
      EXPECT_EQ(w.name + ".textproto", name);
      ++workloads;
    }
  }
  EXPECT_GE(serve_files, 3u);
  EXPECT_GE(workloads, 2u);
}

TEST(ServeLoader, NamesEveryProblemWithItsField) {
  const std::string e = error_of([] {
    parse_serve_text(
        "replicas { topology: \"missing.textproto\" workload: \"\" max_batch: 8 "
        "max_tokens_per_step: 4 kv_memory_fraction: 2 preemption: SWAP }\n"
        "arrivals { gamma { rate_per_s: 5 cv: 0 } prompt_tokens { uniform { min: 10 max: 5 } } }\n"
        "buckets { batch_steps_per_octave: 3 }\n",
        "x.serve", source_dir());
  });
  for (const char* want :
       {"x.serve:1:", "replicas[0].topology: no such file", "replicas[0].workload: must name",
        "replicas[0].max_tokens_per_step: must be >= max_batch", "replicas[0].kv_memory_fraction",
        "replicas[0].host_bandwidth_gbps: SWAP preemption needs the host bandwidth",
        "arrivals.gamma.cv: must be > 0", "arrivals.prompt_tokens.uniform.max: must be >= min",
        "arrivals.output_tokens: synthetic arrivals need a length",
        "duration_s: synthetic arrivals need an end",
        "buckets.batch_steps_per_octave: must be a power of two"})
    EXPECT_NE(e.find(want), std::string::npos) << want << "\n" << e;
}

// Issue 31 point 6: refined buckets by default with a 1% target;
// measure_error: false (alone) keeps the round-up buckets; contradictions
// and targets out of range are refused with their field.
TEST(ServeLoader, BucketModeAndTarget) {
  const std::string head =
      "replicas { topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 512 }\n"
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: 10 "
      "} }\nrequests: 10\n";
  const auto load = [&](const std::string& buckets) {
    return parse_serve_text(head + buckets, "b.serve", source_dir());
  };
  const ServeSpec plain = load("");
  EXPECT_EQ(plain.buckets.mode, BucketMode::kRefine);
  EXPECT_EQ(plain.buckets.max_error, 0.01);
  EXPECT_TRUE(plain.buckets.refine());
  const ServeSpec tight = load("buckets { max_error: 0.002 }");
  EXPECT_EQ(tight.buckets.max_error, 0.002);
  EXPECT_TRUE(tight.buckets.refine());
  const ServeSpec unmeasured = load("buckets { measure_error: false }");
  EXPECT_EQ(unmeasured.buckets.mode, BucketMode::kRoundUp);
  EXPECT_FALSE(unmeasured.buckets.refine());
  const ServeSpec round_up = load("buckets { mode: BUCKETS_ROUND_UP }");
  EXPECT_EQ(round_up.buckets.mode, BucketMode::kRoundUp);
  EXPECT_TRUE(round_up.buckets.measure_error);
  EXPECT_FALSE(round_up.buckets.refine());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"buckets { mode: BUCKETS_REFINE measure_error: false }",
       "buckets.measure_error: BUCKETS_REFINE always simulates both corners"},
      {"buckets { mode: BUCKETS_ROUND_UP max_error: 0.02 }",
       "buckets.max_error: applies to mode BUCKETS_REFINE only"},
      {"buckets { measure_error: false max_error: 0.02 }",
       "buckets.max_error: applies to mode BUCKETS_REFINE only"},
      {"buckets { max_error: -0.01 }", "buckets.max_error: must be between 1e-04 and 0.5"},
      {"buckets { max_error: 0.6 }", "buckets.max_error: must be between 1e-04 and 0.5"},
      {"buckets { max_error: 0.00001 }", "buckets.max_error: must be between 1e-04 and 0.5"},
      {"buckets { max_error: nan }", "buckets.max_error: must be between 1e-04 and 0.5"},
      {"buckets { mode: 7 }", "buckets.mode"}};
  for (const auto& [text, want] : bad) {
    const std::string file = text;  // clang 14 captures no structured binding
    const std::string e = error_of([&] { load(file); });
    EXPECT_NE(e.find(want), std::string::npos) << text << "\n" << e;
    EXPECT_NE(e.find("b.serve:4:"), std::string::npos) << e;
  }
}

TEST(ServeLoader, DisaggregationNeedsBothRolesAndATransfer) {
  const std::string replica =
      "topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 512";
  const std::string arrivals =
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: 10 "
      "} }\n"
      "requests: 10\n";
  const std::string e = error_of([&] {
    parse_serve_text(
        "replicas { " + replica + " role: ROLE_PREFILL scheduler: STATIC_BATCHING }\n" + arrivals,
        "d.serve", source_dir());
  });
  EXPECT_NE(
      e.find("replicas[0].scheduler: ROLE_PREFILL and ROLE_DECODE replicas batch continuously"),
      std::string::npos)
      << e;
  EXPECT_NE(e.find("replicas: ROLE_PREFILL replicas need a ROLE_DECODE replica"), std::string::npos)
      << e;
  EXPECT_NE(e.find("kv_transfer.bandwidth_gbps_per_chip: ROLE_PREFILL replicas hand"),
            std::string::npos)
      << e;
  const ServeSpec ok =
      parse_serve_text("replicas { " + replica + " role: ROLE_PREFILL }\nreplicas { " + replica +
                           " role: ROLE_DECODE }\n" + arrivals +
                           "kv_transfer { bandwidth_gbps_per_chip: 2 latency_us: 5 }\n",
                       "ok.serve", source_dir());
  EXPECT_EQ(ok.replicas[0].role, RoleKind::kPrefill);
  EXPECT_EQ(ok.replicas[1].role, RoleKind::kDecode);
  EXPECT_EQ(ok.kv_transfer.dcn.bandwidth_per_chip, sim::Bandwidth::from_gbps(2));
  EXPECT_EQ(ok.kv_transfer.dcn.latency, sim::Time::us(5));
  EXPECT_EQ(ok.kv_transfer.model, "flow");
  // The two slices joined by that DCN: the pod the caches move over.
  ASSERT_TRUE(ok.kv_transfer.pod.has_value());
  EXPECT_EQ(ok.kv_transfer.pod->slices, 2u);
  EXPECT_EQ(ok.kv_transfer.pod->torus, ok.replicas[0].pod.torus);
  EXPECT_EQ(ok.kv_transfer.pod->dcn, ok.kv_transfer.dcn);
}

// Prefix caching (docs/serving.md, "Prefix caching"): not on ROLE_DECODE
// replicas; the conversations generator's fields are checked like every
// other process's and its lengths are its own.
TEST(ServeLoader, PrefixCachingAndConversations) {
  const std::string replica =
      "topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 512 prefix_caching: true";
  const std::string e = error_of([&] {
    parse_serve_text("replicas { " + replica + " role: ROLE_PREFILL }\nreplicas { " + replica +
                         " role: ROLE_DECODE }\n"
                         "kv_transfer { bandwidth_gbps_per_chip: 2 }\n"
                         "arrivals { conversations { rate_per_s: 0 system_prompts: 0 "
                         "turns { fixed: 0 } user_tokens { fixed: 5 } think_time_s: -1 } "
                         "prompt_tokens { fixed: 3 } }\n",
                     "c.serve", source_dir());
  });
  for (const char* want :
       {"replicas[1].prefix_caching: a ROLE_DECODE replica receives whole KV caches",
        "arrivals.conversations.rate_per_s: must be > 0",
        "arrivals.conversations.system_prompts: must be >= 1",
        "arrivals.conversations.system_prompt_tokens: synthetic arrivals need a length",
        "arrivals.conversations.turns.fixed: must be >= 1",
        "arrivals.conversations.output_tokens: synthetic arrivals need a length",
        "arrivals.conversations.think_time_s: must be >= 0",
        "arrivals.prompt_tokens: conversations give their own lengths",
        "duration_s: synthetic arrivals need an end"})
    EXPECT_NE(e.find(want), std::string::npos) << want << "\n" << e;
  EXPECT_EQ(e.find("replicas[0].prefix_caching"), std::string::npos) << e;
  const ServeSpec ok = parse_serve_text(
      "replicas { " + replica +
          " }\narrivals { conversations { rate_per_s: 2 system_prompts: 4 "
          "system_prompt_tokens { fixed: 1000 } turns { uniform { min: 1 max: 5 } } "
          "user_tokens { fixed: 50 } output_tokens { exponential { mean: 100 max: 400 } } "
          "think_time_s: 10 } }\nrequests: 100\n",
      "ok.serve", source_dir());
  EXPECT_TRUE(ok.replicas[0].prefix_caching);
  EXPECT_EQ(ok.arrivals.kind, ArrivalKind::kConversations);
  EXPECT_EQ(ok.arrivals.conversations.system_prompts, 4u);
  EXPECT_EQ(ok.arrivals.conversations.system_prompt_tokens.min, 1000u);
  EXPECT_EQ(ok.arrivals.conversations.turns.max, 5u);
  EXPECT_EQ(ok.arrivals.conversations.output_tokens.kind, LengthKind::kExponential);
  EXPECT_EQ(ok.arrivals.conversations.think_time_s, 10);
}

TEST(ServeLoader, KvTransferNamesItsModelAndJoinsSlicesOverDcnWhateverTheirShapes) {
  const std::string arrivals =
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: 10 "
      "} }\n"
      "requests: 10\n";
  auto replica = [](const std::string& topology, const std::string& role) {
    const std::string workload =
        topology == "v5e-2x2.textproto" ? "llama3-8b-v5e-2x2" : "llama3-70b-v5e-4x4";
    return "replicas { topology: \"topologies/" + topology + "\" workload: \"workloads/serve/" +
           workload + ".textproto\" max_batch: 8 max_tokens_per_step: 512 role: " + role + " }\n";
  };
  const std::string bad_model = error_of([&] {
    parse_serve_text(replica("v5e-2x2.textproto", "ROLE_PREFILL") +
                         replica("v5e-2x2.textproto", "ROLE_DECODE") + arrivals +
                         "kv_transfer { bandwidth_gbps_per_chip: 2 model: \"fluid\" }\n",
                     "m.serve", source_dir());
  });
  EXPECT_NE(bad_model.find("m.serve"), std::string::npos) << bad_model;
  EXPECT_NE(bad_model.find("kv_transfer.model: must be flow, analytical or packet, got \"fluid\""),
            std::string::npos)
      << bad_model;
  // Slices of different shapes join over DCN as lines of chips by id
  // (docs/serving.md, "Heterogeneous fleets"), one per copy, as long as
  // the largest copy.
  const ServeSpec shapes = parse_serve_text(
      replica("v5e-2x2.textproto", "ROLE_PREFILL") + replica("v5e-4x4.textproto", "ROLE_DECODE") +
          arrivals + "kv_transfer { bandwidth_gbps_per_chip: 2 }\n",
      "s.serve", source_dir());
  EXPECT_TRUE(shapes.kv_transfer.chips_by_id);
  ASSERT_TRUE(shapes.kv_transfer.pod.has_value());
  EXPECT_EQ(shapes.kv_transfer.pod->slices, 2u);
  ASSERT_EQ(shapes.kv_transfer.pod->torus.dims.size(), 1u);
  EXPECT_EQ(shapes.kv_transfer.pod->torus.dims[0].size, 16u);
  EXPECT_EQ(shapes.kv_transfer.pod->dcn, shapes.kv_transfer.dcn);
  EXPECT_EQ(shapes.kv_transfer.placement.size(), 2u);
  EXPECT_EQ(shapes.kv_transfer.placement[1].slice, 1u);
  // Over ICI the copies tile one slice: different slices are refused there.
  const std::string ici = error_of([&] {
    parse_serve_text(replica("v5e-2x2.textproto", "ROLE_PREFILL") +
                         replica("v5e-4x4.textproto", "ROLE_DECODE") + arrivals +
                         "kv_transfer { ici_topology: \"topologies/v5e-4x4.textproto\" }\n",
                     "i.serve", source_dir());
  });
  EXPECT_NE(ici.find("i.serve"), std::string::npos) << ici;
  EXPECT_NE(ici.find("kv_transfer.ici_topology: "), std::string::npos) << ici;
  EXPECT_NE(ici.find("is not the slice of"), std::string::npos) << ici;
  // kv_transfer.reshard reaches the spec.
  const ServeSpec forced = parse_serve_text(
      replica("v5e-2x2.textproto", "ROLE_PREFILL") + replica("v5e-2x2.textproto", "ROLE_DECODE") +
          arrivals + "kv_transfer { bandwidth_gbps_per_chip: 2 reshard: true }\n",
      "r.serve", source_dir());
  EXPECT_TRUE(forced.kv_transfer.reshard);
  EXPECT_FALSE(forced.kv_transfer.chips_by_id);
}

TEST(ServeLoader, OverIciTheCopiesTileTheNamedSlice) {
  const std::string arrivals =
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: 10 "
      "} }\n"
      "requests: 10\n";
  auto replicas = [](uint32_t prefills, uint32_t decodes) {
    const std::string r =
        "topology: \"topologies/v5e-2x2.textproto\" workload: "
        "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 max_tokens_per_step: 512";
    return "replicas { " + r + " role: ROLE_PREFILL count: " + std::to_string(prefills) +
           " }\nreplicas { " + r + " role: ROLE_DECODE count: " + std::to_string(decodes) + " }\n";
  };
  const ServeSpec ok =
      parse_serve_text(replicas(1, 2) + arrivals +
                           "kv_transfer { ici_topology: \"topologies/v5e-4x4.textproto\" }\n",
                       "ici.serve", source_dir());
  ASSERT_TRUE(ok.kv_transfer.pod.has_value());
  EXPECT_EQ(ok.kv_transfer.pod->torus.chip_count(), 16u);
  EXPECT_EQ(ok.kv_transfer.shape, (std::vector<uint32_t>{2, 2}));
  ASSERT_EQ(ok.kv_transfer.placement.size(), 3u);
  EXPECT_EQ(ok.kv_transfer.placement[0].origin, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(ok.kv_transfer.placement[1].origin, (std::vector<uint32_t>{2, 0}));
  EXPECT_EQ(ok.kv_transfer.placement[2].origin, (std::vector<uint32_t>{0, 2}));

  const std::string full = error_of([&] {
    parse_serve_text(replicas(2, 3) + arrivals +
                         "kv_transfer { ici_topology: \"topologies/v5e-4x4.textproto\" }\n",
                     "full.serve", source_dir());
  });
  EXPECT_NE(full.find("full.serve"), std::string::npos) << full;
  EXPECT_NE(full.find("kv_transfer.ici_topology: "), std::string::npos) << full;
  EXPECT_NE(full.find("holds 4 copies"), std::string::npos) << full;
  const std::string both = error_of([&] {
    parse_serve_text(replicas(1, 1) + arrivals +
                         "kv_transfer { ici_topology: \"topologies/v5e-4x4.textproto\" "
                         "bandwidth_gbps_per_chip: 3 }\n",
                     "both.serve", source_dir());
  });
  EXPECT_NE(both.find("kv_transfer.bandwidth_gbps_per_chip: over ICI"), std::string::npos) << both;
  const std::string missing = error_of([&] {
    parse_serve_text(
        replicas(1, 1) + arrivals + "kv_transfer { ici_topology: \"nope.textproto\" }\n",
        "missing.serve", source_dir());
  });
  EXPECT_NE(missing.find("kv_transfer.ici_topology: no such file"), std::string::npos) << missing;
}

TEST(ServeLoader, RefusesARunOfMoreRequestsThanItMayHold) {
  const std::string base =
      "replicas { topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 512 }\n"
      "arrivals { poisson { rate_per_s: 1000000 } prompt_tokens { fixed: 10 } "
      "output_tokens { fixed: 10 } }\n";
  const std::string e =
      error_of([&] { parse_serve_text(base + "duration_s: 100\n", "big.serve", source_dir()); });
  EXPECT_NE(e.find("duration_s: rate x duration_s makes about 100000000 requests"),
            std::string::npos)
      << e;
  const ServeSpec ok =
      parse_serve_text(base + "duration_s: 100 requests: 1000\n", "ok.serve", source_dir());
  EXPECT_EQ(ok.max_requests, 1000u);
  const ServeSpec capped = parse_serve_text(base + "duration_s: 1\n", "cap.serve", source_dir());
  EXPECT_EQ(capped.max_requests, kMaxServeRequests);
}

TEST(TraceLoader, ReadsBothFormatsAndSortsByTime) {
  const auto plain =
      parse_trace_csv("arrival_s,prompt_tokens,output_tokens\n2.5,10,3\n1,20,4\n", "p.csv");
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[0].prompt_tokens, 20u);
  EXPECT_EQ(plain[1].arrival, sim::Time::ms(1500));
  const auto azure = parse_trace_csv(
      "TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-12-31 23:59:59.5,5,6\r\n"
      "2024-01-01 00:00:00.25,7,8\r\n",
      "a.csv", 2);
  ASSERT_EQ(azure.size(), 2u);
  EXPECT_EQ(azure[1].arrival, sim::Time::ms(375)) << "0.75 s across the new year, halved";
}

// Azure timestamps are about 1.7e9 s after 1970, 1.7e21 ps: past int64, so
// times are taken relative to the earliest row in whole seconds first (the
// trace_csv fuzzer's first finding: signed overflow under UBSan). A slowed
// trace is bounded after its speed-up, however small.
TEST(TraceLoader, TimesPastInt64PicosecondsAndSlowedTraces) {
  const std::string two_rows =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:48.6805900,396,109\n";
  const auto trace = parse_trace_csv(two_rows, "a.csv");
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0].arrival, sim::Time());
  EXPECT_EQ(trace[1].arrival, sim::Time::s(2));
  // Slowed a million times: 2e6 s, within the 30-day bound.
  EXPECT_EQ(parse_trace_csv(two_rows, "a.csv", 1e-6)[1].arrival, sim::Time::s(2'000'000));
  // Slowed ten million times, or by 1e-300: past it, refused.
  for (const double slow : {1e-7, 1e-300}) {
    EXPECT_NE(error_of([&] {
                parse_trace_csv(two_rows, "a.csv", slow);
              }).find("the trace spans more than 2592000 s after its speed-up"),
              std::string::npos)
        << slow;
  }
}

// Sped up, a trace may span more before its speed-up than int64 picoseconds
// hold (2^63 ps is about 107 days): serve_trace_fuzzer's finding, an Azure
// row of 1970 among rows of 2023 sped up a million times (signed overflow
// under UBSan). Such spans are scaled in double.
TEST(TraceLoader, SpedUpTracesSpanningMoreThanInt64Picoseconds) {
  const auto year = parse_trace_csv(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-01-01 00:00:00,1,1\n"
      "2024-01-01 00:00:00,1,1\n",
      "y.csv", 12.5);
  ASSERT_EQ(year.size(), 2u);
  EXPECT_EQ(year[1].arrival, sim::Time::s(31'536'000 * 2 / 25)) << "365 days / 12.5";
  const auto decades = parse_trace_csv(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:16:05.1444820,389,87\n"
      "1970-01-01 00:00:00,209,181\n",
      "d.csv", 1e6);
  ASSERT_EQ(decades.size(), 2u);
  EXPECT_EQ(decades[0].prompt_tokens, 209u) << "the 1970 row first";
  // 1700158565.144482 s after it, a millionth of that: within a picosecond.
  EXPECT_NEAR(static_cast<double>(decades[1].arrival.count_ps()), 1700158565144482.0, 1.0);
  // Unchanged where the span fits: 2 s, halved.
  EXPECT_EQ(parse_trace_csv("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,1\n"
                            "2023-11-16 18:15:48,1,1\n",
                            "s.csv", 2)[1]
                .arrival,
            sim::Time::s(1));
}

TEST(TraceLoader, NamesTheLineAndColumnOfEveryBadCell) {
  const std::string e = error_of([] {
    parse_trace_csv(
        "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-02-30 00:00:00,5,6\n"
        "2023-01-01 00:00:00,0,6\n2023-01-01 00:00:00,5\n",
        "t.csv");
  });
  EXPECT_NE(e.find("t.csv:2:1: TIMESTAMP"), std::string::npos) << e;
  EXPECT_NE(e.find("t.csv:3:21: ContextTokens"), std::string::npos) << e;
  EXPECT_NE(e.find("t.csv:4:1: expected 3 comma-separated cells"), std::string::npos) << e;
  EXPECT_NE(
      error_of([] { parse_trace_csv("a,b,c\n1,2,3\n", "h.csv"); }).find("unknown trace header"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              parse_trace_csv("arrival_s,prompt_tokens,output_tokens\n", "e.csv");
            }).find("no requests"),
            std::string::npos);
}

// Speculative decoding, admission control and SLO classes
// (serve_policy_validator.cc): every rule names its field.
TEST(ServeLoader, ServingPoliciesNameEveryProblemWithItsField) {
  const std::string replica =
      "topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 16";
  const std::string arrivals =
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { fixed: 10 "
      "} }\n"
      "requests: 10\n";
  const std::string e = error_of([&] {
    parse_serve_text(
        "replicas { " + replica +
            " scheduler: STATIC_BATCHING admission: REJECT_LATE speculative { draft_tokens: 3 "
            "acceptance_rate: 1.5 acceptance_per_position: [0.5] draft_topology: \"t\" } }\n"
            "replicas { " +
            replica +
            " speculative { acceptance_rate: 0.5 } }\n"
            "replicas { " +
            replica +
            " speculative { draft_tokens: 40 acceptance_rate: 0.5 mtp_layers: 1 "
            "draft_workload: \"nope.textproto\" } }\n" +
            arrivals +
            "slo_classes { name: \"a b\" ttft_ms: -1 share: 0.75 }\n"
            "slo_classes { name: \"x\" share: 0.5 }\n"
            "slo_classes { name: \"x\" }\n",
        "p.serve", source_dir());
  });
  for (const char* want :
       {"replicas[0].admission: REJECT_LATE and DEFER_LATE need the DEADLINE scheduler",
        "replicas[0].speculative.acceptance_rate: give the acceptance as one rate or",
        "replicas[0].speculative.acceptance_rate: must be in [0, 1]",
        "replicas[0].speculative.acceptance_per_position: needs one probability per draft token",
        "replicas[0].speculative.draft_workload: give the draft as a draft_workload file or",
        "replicas[0].speculative.draft_topology: only a draft_workload runs",
        "replicas[0].speculative.draft_tokens: speculative decoding batches continuously",
        "replicas[0].max_tokens_per_step: must be >= max_batch x (draft_tokens + 1) (32)",
        "replicas[1].speculative.draft_tokens: speculative decoding needs draft_tokens >= 1",
        "replicas[2].speculative.draft_tokens: must be <= 32",
        "replicas[2].speculative.draft_workload: no such file",
        "slo_classes[0].name: must be 1 to 64 letters", "slo_classes[0].ttft_ms",
        "slo_classes[2].name: names another class already",
        "slo_classes: the shares add up to 1.25, more than 1"})
    EXPECT_NE(e.find(want), std::string::npos) << want << "\n" << e;
}

TEST(ServeLoader, SpeculativeDraftsLoad) {
  const std::string replica =
      "topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 "
      "max_tokens_per_step: 512 scheduler: DEADLINE admission: DEFER_LATE";
  const ServeSpec s = parse_serve_text(
      "replicas { " + replica +
          " speculative { draft_tokens: 2 acceptance_per_position: [0.9, 0.5] mtp_layers: 1 } }\n"
          "replicas { " +
          replica +
          " speculative { draft_tokens: 1 acceptance_rate: 0.7 draft_workload: "
          "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" draft_topology: "
          "\"topologies/v5e-2x2.textproto\" } }\n"
          "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { "
          "fixed: 10 } }\nrequests: 10\n"
          "slo_classes { name: \"chat\" ttft_ms: 200 tpot_ms: 40 share: 0.25 }\n",
      "ok.serve", source_dir());
  const SpeculativeSpec& mtp = s.replicas[0].speculative;
  EXPECT_EQ(mtp.draft_tokens, 2u);
  EXPECT_EQ(mtp.acceptance, (std::vector<double>{0.9, 0.5}));
  ASSERT_TRUE(mtp.draft_workload.has_value());
  EXPECT_EQ(mtp.draft_workload->serving->model.layers, 1u);
  EXPECT_FALSE(mtp.draft_pod.has_value());
  EXPECT_EQ(s.replicas[0].scheduler, SchedulerKind::kDeadline);
  EXPECT_EQ(s.replicas[0].admission, AdmissionKind::kDeferLate);
  const SpeculativeSpec& own = s.replicas[1].speculative;
  EXPECT_EQ(own.acceptance, (std::vector<double>{0.7}));
  ASSERT_TRUE(own.draft_pod.has_value());
  EXPECT_EQ(own.draft_pod->chip_count(), 4u);
  ASSERT_EQ(s.slo_classes.size(), 1u);
  EXPECT_EQ(s.slo_classes[0].name, "chat");
  EXPECT_EQ(s.slo_classes[0].slo.tpot_ms, 40);
  EXPECT_EQ(s.slo_classes[0].share, 0.25);
}

// A trace's slo_class column names the serve file's classes: resolved to
// their indices, and a name that is not a class is refused naming the file.
TEST(ServeLoader, TraceSloClassesResolveToTheServeFilesClasses) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("podsim-slo-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir / "t.csv");
    f << "arrival_s,prompt_tokens,output_tokens,slo_class\n0,10,5,chat\n1,10,5,\n2,10,5,batch\n";
  }
  const std::string head =
      "replicas { topology: \"" + (source_dir() / "topologies/v5e-2x2.textproto").string() +
      "\" workload: \"" + (source_dir() / "workloads/serve/llama3-8b-v5e-2x2.textproto").string() +
      "\" max_batch: 8 max_tokens_per_step: 512 }\narrivals { trace { file: \"t.csv\" } }\n";
  const ServeSpec s = parse_serve_text(
      head +
          "slo_classes { name: \"batch\" ttft_ms: 9000 }\nslo_classes { name: \"chat\" "
          "ttft_ms: 200 }\n",
      "c.serve", dir);
  ASSERT_EQ(s.arrivals.trace.size(), 3u);
  EXPECT_EQ(s.arrivals.trace[0].slo_class_index, 2u);
  EXPECT_EQ(s.arrivals.trace[1].slo_class_index, 0u);
  EXPECT_EQ(s.arrivals.trace[2].slo_class_index, 1u);
  const std::string e = error_of(
      [&] { parse_serve_text(head + "slo_classes { name: \"chat\" }\n", "c.serve", dir); });
  EXPECT_NE(e.find("arrivals.trace.file: '"), std::string::npos) << e;
  EXPECT_NE(e.find("names SLO class \"batch\", which is not one of the serve file's slo_classes"),
            std::string::npos)
      << e;
  std::filesystem::remove_all(dir);
}

// The time-between-tokens objective (docs/serving.md, "Time between
// tokens"): >= 0 and finite, in the file's slo and in each class; loads
// into the specs.
TEST(ServeLoader, TbtObjectivesAreCheckedAndLoad) {
  const std::string head =
      "replicas { topology: \"topologies/v5e-2x2.textproto\" workload: "
      "\"workloads/serve/llama3-8b-v5e-2x2.textproto\" max_batch: 8 max_tokens_per_step: 512 }\n"
      "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 10 } output_tokens { "
      "fixed: 10 } }\nrequests: 10\n";
  const std::string e = error_of([&] {
    parse_serve_text(head + "slo { tbt_ms: -5 }\nslo_classes { name: \"chat\" tbt_ms: nan }\n",
                     "bad.serve", source_dir());
  });
  for (const char* want :
       {"bad.serve", "slo.tbt_ms: must be >= 0, got -5", "slo_classes[0].tbt_ms"})
    EXPECT_NE(e.find(want), std::string::npos) << want << "\n" << e;
  const ServeSpec s = parse_serve_text(
      head + "slo { tpot_ms: 100 tbt_ms: 250 }\nslo_classes { name: \"chat\" tbt_ms: 50 }\n",
      "ok.serve", source_dir());
  EXPECT_EQ(s.slo.tbt_ms, 250);
  EXPECT_EQ(s.slo.tpot_ms, 100);
  ASSERT_EQ(s.slo_classes.size(), 1u);
  EXPECT_EQ(s.slo_classes[0].slo.tbt_ms, 50);
  EXPECT_EQ(parse_serve_text(head, "none.serve", source_dir()).slo.tbt_ms, 0);
}

}  // namespace serve_loader_test
}  // namespace podsim::config
