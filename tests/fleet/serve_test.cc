// End to end on small real pods: `podsim serve`'s library function and
// command on the shipped examples; continuous batching against static
// batching on the Azure conversation trace at equal hardware.
#include "fleet/serve.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string_view>

#include "cli/context.h"
#include "config/serve_loader.h"
#include "fleet/kv_transfer.h"
#include "fleet/serve_output.h"
#include "fleet/serve_trace.h"
#include "fleet_fixture.h"
#include "podsim/trace.pb.h"
#include "study/evaluate.h"

namespace podsim::fleet {
namespace serve_test {

std::filesystem::path source_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

config::ServeSpec shipped(const char* name) {
  return config::load_serve_file(source_dir() / "workloads/serve" / name);
}

TEST(Serve, SameSeedSameBytesOtherSeedOtherRun) {
  config::ServeSpec spec = shipped("llama3-8b-poisson.serve.textproto");
  spec.duration = sim::Time::s(15);
  const ServeOutput a = serve(spec);
  const ServeOutput b = serve(spec);
  EXPECT_EQ(requests_csv(a), requests_csv(b));
  EXPECT_EQ(timeseries_csv(a), timeseries_csv(b));
  EXPECT_EQ(summary_json(make_report(spec, a)), summary_json(make_report(spec, b)));
  spec.seed += 1;
  const ServeOutput c = serve(spec);
  EXPECT_NE(requests_csv(a), requests_csv(c));
  EXPECT_GT(a.summary.completed, 100u);
  EXPECT_EQ(a.summary.rejected, 0u);
  EXPECT_EQ(a.setups.size(), 2u) << "count: 2";
}

TEST(Serve, ContinuousBatchingBeatsStaticOnTheAzureConversationTrace) {
  config::ServeSpec spec = shipped("llama3-70b-azure-conv.serve.textproto");
  ASSERT_EQ(spec.arrivals.trace.size(), 300u);
  auto run = [&](config::SchedulerKind kind) {
    config::ServeSpec s = spec;
    s.replicas[0].scheduler = kind;
    return serve(s).summary;
  };
  const ServeSummary stat = run(config::SchedulerKind::kStatic);
  const ServeSummary cont = run(config::SchedulerKind::kContinuous);
  const ServeSummary chunk = run(config::SchedulerKind::kChunkedPrefill);
  EXPECT_EQ(stat.completed, 300u);
  EXPECT_EQ(cont.completed, 300u);
  for (const ServeSummary* s : {&cont, &chunk}) {
    EXPECT_LT(s->e2e_s.mean, stat.e2e_s.mean);
    EXPECT_LT(s->e2e_s.p99, stat.e2e_s.p99);
    EXPECT_LT(s->ttft_s.p50, stat.ttft_s.p50);
    EXPECT_GT(s->goodput_requests_per_s, stat.goodput_requests_per_s);
    EXPECT_GE(s->requests_per_s, stat.requests_per_s);
  }
}

TEST(Serve, ADisaggregatedFleetPaysEachCachesTransferOverTheDcn) {
  const config::ServeSpec spec = shipped("llama3-70b-disaggregated.serve.textproto");
  ASSERT_TRUE(spec.kv_transfer.pod.has_value());
  EXPECT_EQ(spec.kv_transfer.pod->slices, 3u) << "one prefill and two decode slices";
  const ServeOutput out = serve(spec);
  ASSERT_EQ(out.setups.size(), 3u);
  const double bytes_per_token = out.replicas[0].kv.kv_bytes_per_token;  // per chip
  EXPECT_NEAR(bytes_per_token, 40960, 1) << "one KV head of 128 x 2 x 80 layers x 2 B per chip";
  // What `podsim run` gives for one cache alone: a SEND of its bytes from every
  // chip of the prefill slice to the same chip of the decode slice.
  const topo::Pod pod(*spec.kv_transfer.pod);
  std::map<std::pair<uint32_t, uint32_t>, sim::Time> alone_of;
  auto alone = [&](uint32_t tokens, uint32_t slice) {
    auto [it, fresh] = alone_of.try_emplace({tokens, slice});
    if (fresh) {
      config::WorkloadSpec w;
      w.name = "one-cache";
      w.operations.push_back(config::OperationSpec{
          "cache",
          {},
          1,
          kv_send(pod, spec.kv_transfer.shape, spec.kv_transfer.placement.at(0),
                  spec.kv_transfer.placement.at(slice),
                  static_cast<uint64_t>(std::ceil(tokens * bytes_per_token)))});
      const study::Evaluation e = study::evaluate_in_detail(pod, w, study::RunOptions{});
      it->second = e.op_list->operations.at(0).end - e.op_list->operations.at(0).start;
    }
    return it->second;
  };
  uint64_t uncontended = 0;
  for (const RequestRecord& q : out.run.requests) {
    ASSERT_TRUE(q.done);
    EXPECT_EQ(q.replica, 0u);
    EXPECT_GE(q.decode_replica, 1u);
    // The cache holds the prompt when the prefill hands it over.
    const sim::Time one = alone(q.prompt_tokens, q.decode_replica);
    EXPECT_NEAR(one.to_s(), q.prompt_tokens * bytes_per_token / 3.125e9 + 10e-6, 1e-8)
        << "each chip's share over its own 3.125 GB/s DCN link, then 10 us";
    EXPECT_GE(q.kv_transfer, one);
    uncontended += q.kv_transfer == one;
    EXPECT_GE(q.finish - q.first_token, q.kv_transfer) << "decoding starts after the cache lands";
  }
  EXPECT_GT(uncontended, 150u) << "most caches move on idle links";
  EXPECT_LT(uncontended, 300u) << "some share the prefill slice's DCN links";
  EXPECT_EQ(out.summary.kv_transfer_s.count, 300u);
  EXPECT_EQ(out.run.replicas[0].decode_tokens, 0u);
}

TEST(ServeTrace, OneTrackPerReplicaAndASlicePerStep) {
  config::ServeSpec spec = shipped("llama3-8b-poisson.serve.textproto");
  spec.duration = sim::Time::s(5);
  const ServeOutput out = serve(spec, true);
  ASSERT_EQ(out.run.steps.size(), 2u);
  std::ostringstream os;
  write_serve_trace(spec, out, os);
  podsim::output::Trace trace;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(os.str(), &trace).ok());
  std::vector<uint64_t> slices(3, 0);
  std::vector<double> busy_us(3, 0);
  for (const auto& e : trace.traceevents()) {
    if (e.ph() == "X") {
      ASSERT_LT(e.tid(), 3u);
      ++slices[e.tid()];
      busy_us[e.tid()] += e.args().dur_ps() * 1e-6;
    }
  }
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(slices[r + 1], out.run.replicas[r].steps) << r;
    EXPECT_EQ(slices[r + 1], out.run.steps[r].size()) << r;
    EXPECT_NEAR(busy_us[r + 1], out.run.replicas[r].busy.to_us(), 1e-3) << r;
  }
  EXPECT_EQ(trace.otherdata().generator(), "podsim serve --trace");
}

TEST(ServeOutputs, EveryRequestRowHasEveryColumn) {
  testing::LinearTimer timer;
  FleetSetup setup;
  setup.replicas.push_back(
      testing::replica(timer, config::SchedulerKind::kContinuous, 4, 1024, 10));
  setup.arrivals =
      make_arrival_process(testing::trace_of({{0, 100, 1}, {0.5, 400, 3}, {1, 20, 5}}), 0);
  setup.sample_interval = sim::Time::ms(100);
  ServeOutput out;
  out.setups = setup.replicas;
  out.run = simulate(std::move(setup));
  const std::string csv = requests_csv(out);
  std::istringstream in(csv);
  int rows = 0;
  for (std::string line; std::getline(in, line); ++rows)
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 18) << line;
  EXPECT_EQ(rows, 4);
  EXPECT_NE(csv.find("\n1,0.5,r,400,3,rejected,,,0.5,,,,0,,,,0,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n0,0,r,100,1,ok,0,"), std::string::npos) << csv;
  std::istringstream ts(timeseries_csv(out));
  std::string header;
  std::getline(ts, header);
  EXPECT_EQ(header,
            "time_s,replica,waiting,running,kv_blocks_used,kv_utilisation,power_w,fleet_power_w");
  std::string first;
  std::getline(ts, first);
  EXPECT_EQ(first, "0,r,0,1,7,0.7,,")
      << "at 0 the first request (100 tokens: 7 blocks) runs; a formula with no power model";
}

TEST(ServeCommand, WritesEveryOutputAndRefusesBadInput) {
  const auto dir = std::filesystem::temp_directory_path() / "podsim_serve_command_test";
  std::filesystem::create_directories(dir);
  const std::string file =
      (source_dir() / "workloads/serve/llama3-70b-azure-conv.serve.textproto").string();
  std::ostringstream out;
  std::ostringstream err;
  const int code =
      cli::run_cli({"serve", file, "--requests", (dir / "r.csv").string(), "--timeseries",
                    (dir / "t.csv").string(), "--summary-json", (dir / "s.json").string(),
                    "--summary-csv", (dir / "s.csv").string(), "--format", "csv"},
                   out, err);
  ASSERT_EQ(code, 0) << err.str();
  std::ifstream r(dir / "r.csv");
  std::string header;
  std::getline(r, header);
  EXPECT_EQ(header,
            "request,arrival_s,replica,prompt_tokens,output_tokens,status,queue_delay_s,"
            "first_token_s,finish_s,ttft_s,tpot_s,e2e_s,preemptions,decode_replica,kv_transfer_s,"
            "energy_j,cached_prompt_tokens,max_tbt_s,tbt_over_slo");
  int rows = 0;
  for (std::string line; std::getline(r, line);)
    ++rows;
  EXPECT_EQ(rows, 300);
  EXPECT_TRUE(std::filesystem::exists(dir / "t.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "s.json"));
  EXPECT_NE(out.str().find("ttft_s.p99"), std::string::npos);

  const auto bad = dir / "bad.serve.textproto";
  std::ofstream(bad) << "replicas { topology: \"nope.textproto\" max_batch: 0 }\n"
                        "arrivals { poisson { rate_per_s: -1 } }\n";
  std::ostringstream out2;
  std::ostringstream err2;
  EXPECT_EQ(cli::run_cli({"serve", bad.string()}, out2, err2), 2);
  EXPECT_NE(err2.str().find("bad.serve.textproto:1"), std::string::npos) << err2.str();
  EXPECT_NE(err2.str().find("replicas[0].max_batch"), std::string::npos) << err2.str();
  EXPECT_NE(err2.str().find("arrivals.poisson.rate_per_s: must be > 0"), std::string::npos)
      << err2.str();
  EXPECT_TRUE(out2.str().empty());
}

TEST(ServeOutputs, TheRequestCsvStreamsInPiecesOfTheSameBytes) {
  ServeOutput out;
  out.setups.resize(2);
  out.setups[0].name = "prefill";
  out.setups[1].name = "decode";
  for (uint32_t i = 0; i < 40000; ++i) {
    RequestRecord r;
    r.arrival = sim::Time::us(1000 + 37 * i);
    r.admitted = r.arrival + sim::Time::us(i % 11);
    r.first_token = r.admitted + sim::Time::ms(3);
    r.finish = r.first_token + sim::Time::ms(i % 97);
    r.prompt_tokens = 100 + i % 1000;
    r.output_tokens = 1 + i % 300;
    r.decode_replica = 1;
    r.rejected = i % 1000 == 999;
    r.done = i % 5000 != 4999;
    out.run.requests.push_back(r);
  }
  std::vector<std::string> pieces;
  write_requests_csv(out, [&](std::string_view piece) { pieces.emplace_back(piece); });
  ASSERT_GE(pieces.size(), 3u) << "about 3 MiB of rows in pieces of about 1 MiB";
  std::string joined;
  for (const std::string& p : pieces) {
    EXPECT_LT(p.size(), (size_t{1} << 20) + 1000) << "a piece holds 1 MiB and one row at most";
    EXPECT_EQ(p.back(), '\n') << "pieces end on whole rows";
    joined += p;
  }
  EXPECT_EQ(joined, requests_csv(out));
  EXPECT_NE(joined.find("\n4999,"), std::string::npos);
}

TEST(ServeCommand, ARequestCsvThatCannotBeWrittenLeavesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "podsim_serve_stream_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // The shipped Azure conversation fleet, its first 60 requests (two whole
  // serves below: the streamed file and the in-memory CSV it must equal).
  const std::filesystem::path serve_dir = source_dir() / "workloads/serve";
  const std::string file =
      (std::filesystem::temp_directory_path() / "podsim_serve_stream_test.serve.textproto")
          .string();
  std::ofstream(file) << "name: \"azure-conv-60\"\n"
                      << "replicas { name: \"v5e-4x4\" topology: \""
                      << (source_dir() / "topologies/v5e-4x4.textproto").string()
                      << "\" workload: \"" << (serve_dir / "llama3-70b-v5e-4x4.textproto").string()
                      << "\" scheduler: CHUNKED_PREFILL max_batch: 64 max_tokens_per_step: 2048 }\n"
                      << "arrivals { trace { file: \""
                      << (serve_dir / "azure-conv-300.csv").string()
                      << "\" } }\nrequests: 60\nseed: 1\n";
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(
      cli::run_cli({"serve", file, "--requests", (dir / "missing" / "r.csv").string()}, out, err),
      2);
  EXPECT_NE(err.str().find("missing"), std::string::npos) << err.str();
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "no file and no temporary left";
  // Streamed to its file: the bytes of the in-memory CSV.
  std::ostringstream out2;
  ASSERT_EQ(cli::run_cli({"serve", file, "--requests", (dir / "r.csv").string()}, out2, err), 0)
      << err.str();
  std::ifstream in(dir / "r.csv", std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, requests_csv(serve(config::load_serve_file(file))));
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir))
    ++files;
  EXPECT_EQ(files, 1u) << "no temporary left beside it";
  EXPECT_NE(written.find("\n59,"), std::string::npos) << "60 requests";
  std::filesystem::remove_all(dir);
  std::filesystem::remove(file);
}

}  // namespace serve_test
}  // namespace podsim::fleet
