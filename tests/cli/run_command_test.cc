// `podsim run` on operation-list workloads, in-process: the JSON a script
// reads, the exit codes, and that bad input leaves no output behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/csv_reader.h"
#include "report/result_csv.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

TEST(RunCommand, AllReduceJsonCarriesTheNcclFigures) {
  const Result r =
      run({"run", "--topology", (root() / "topologies/v5e-16x16.textproto").string(), "--workload",
           (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(), "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const podsim::Result result = testing::parse_result(r.out);
  ASSERT_EQ(result.op_list().operations_size(), 1);
  const podsim::OperationResult& op = result.op_list().operations(0);
  EXPECT_EQ(op.name(), "allreduce");
  EXPECT_EQ(op.kind(), "all-reduce");
  EXPECT_EQ(op.bytes(), 1073741824U);
  const double time_us = op.time_us();
  const double algbw = op.collective().algbw_gbps();
  const double busbw = op.collective().busbw_gbps();
  EXPECT_GT(op.collective().link_util_mean(), 0);
  EXPECT_GE(op.collective().link_util_max(), op.collective().link_util_mean());
  // algbw = V / time; busbw = algbw x 2(N-1)/N with N = 256.
  EXPECT_NEAR(algbw, 1073741824.0 / (time_us * 1e-6) * 1e-9, algbw * 1e-9);
  EXPECT_NEAR(busbw, algbw * 2 * 255 / 256, busbw * 1e-9);
  // [SB]: 2V / (W x 2 axes) = 10.74 ms; the schedule adds 1/16 for the second
  // axis, and a balanced 16-ring moves 15/16 of it per link direction.
  EXPECT_NEAR(time_us, 10737.4 * (1 + 1.0 / 16) * 15 / 16, 10737.4 * 0.02);
}

TEST(RunCommand, NetworkModelsAgreeOnTheShippedAllGather) {
  double times[3];
  const char* models[] = {"analytical", "flow", "packet"};
  for (int i = 0; i < 3; ++i) {
    const Result r = run({"run", "-t", (root() / "topologies/v5e-8x16.textproto").string(), "-w",
                          (root() / "workloads/allgather-v5e-8x16.textproto").string(), "-n",
                          models[i], "-f", "json"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    times[i] = testing::parse_result(r.out).op_list().makespan_us();
  }
  EXPECT_NEAR(times[0], times[1], times[1] * 0.01);
  EXPECT_NEAR(times[2], times[1], times[1] * 0.01);
}

TEST(RunCommand, DependenciesOrderOperations) {
  const Result r =
      run({"run", "-t", (root() / "topologies/v5e-4x4.textproto").string(), "-w",
           (root() / "workloads/collectives-tour-v5e-4x4.textproto").string(), "-f", "csv"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  // CSV: start_us of each operation >= end_us of what it waits for.
  const report::CsvDocument doc = report::parse_csv(r.out, "tour.csv");
  const int name = doc.column("op_list.operations.name");
  const int start = doc.column("op_list.operations.start_us");
  const int end = doc.column("op_list.operations.end_us");
  ASSERT_GE(name, 0);
  ASSERT_GE(start, 0);
  ASSERT_GE(end, 0);
  std::map<std::string, std::pair<double, double>> span;
  for (const auto& row : doc.rows) {
    span[row.cells[static_cast<size_t>(name)]] = {std::stod(row.cells[static_cast<size_t>(start)]),
                                                  std::stod(row.cells[static_cast<size_t>(end)])};
  }
  ASSERT_EQ(span.size(), 7U);
  // The tour: gather and scatter start at 0; reduce after both; shuffle after reduce.
  EXPECT_EQ(span["gather"].first, 0.0);
  EXPECT_EQ(span["scatter"].first, 0.0);
  EXPECT_GE(span["reduce"].first, std::max(span["gather"].second, span["scatter"].second));
  EXPECT_GE(span["shuffle"].first, span["reduce"].second);
  EXPECT_GE(span["migrate"].first, span["shift"].second);
}

TEST(RunCommand, IsDeterministic) {
  const std::vector<std::string> args = {
      "run",
      "-t",
      (root() / "topologies/v5e-16x16-x2-dcn.textproto").string(),
      "-w",
      (root() / "workloads/allreduce-2slice-dcn.textproto").string(),
      "-f",
      "json"};
  for (const char* format : {"json", "csv", "textproto", "binpb"}) {
    std::vector<std::string> with_format = args;
    with_format.back() = format;
    const Result a = run(with_format);
    const Result b = run(with_format);
    ASSERT_EQ(a.code, kExitOk) << a.err;
    EXPECT_FALSE(a.out.empty());
    EXPECT_EQ(a.out, b.out) << format;
  }
}

TEST(RunCommand, UsageErrors) {
  const std::string w = (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string();
  EXPECT_EQ(run({"run", "-w", w, "--network", "wormhole"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--switching", "teleport"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--packet-bytes", "0"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--packet-bytes", "-5"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "-w", w, "--format", "yaml"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "--compute", "abacus"}).code, kExitBadInput);
  EXPECT_EQ(run({"run", "--compute", "table"}).code, kExitBadInput);  // needs --op-table
  // Files without -t/-w are refused, not dropped for the default workload.
  const Result positional = run({"run", (root() / "topologies/v5e-16x16.textproto").string(), w});
  EXPECT_EQ(positional.code, kExitBadInput);
  EXPECT_NE(positional.err.find("positional"), std::string::npos) << positional.err;
  EXPECT_EQ(run({"search", w}).code, kExitBadInput);
}

TEST(RunCommand, NoArgumentsRunsTheEmbeddedDefault) {
  const Result r = run({"run", "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const podsim::Result result = testing::parse_result(r.out);
  EXPECT_EQ(result.status(), podsim::Result::ok);
  EXPECT_EQ(result.inputs().serving().model().name(), "LLaMA-3-70B");
  EXPECT_EQ(result.inputs().serving().scenario().phase(), "decode");
  EXPECT_EQ(result.inputs().topology().name(), "tpu-v5e-16x16");
  const podsim::ServingResult& s = result.serving();
  EXPECT_GT(s.tokens_per_s(), 0);
  EXPECT_GT(s.mfu(), 0);
  EXPECT_GT(s.memory().hbm_used_bytes(), 0U);
  EXPECT_TRUE(s.memory().fits());
  EXPECT_GT(s.by_layer_size(), 0);
  EXPECT_GT(s.by_op_class_size(), 0);
  EXPECT_GT(s.chips_breakdown_size(), 0);
  // The four parts add up to the step time.
  EXPECT_NEAR(s.compute_us() + s.memory_us() + s.collective_exposed_us() + s.idle_us(),
              s.step_time_us(), 1e-3);
}

TEST(RunCommand, ShippedServingWorkloadsRunInEveryFormat) {
  for (const char* w : {"llama3-8b-decode-v5e", "mixtral-8x7b-decode-v5e"}) {
    const auto file = root() / "workloads" / (std::string(w) + ".textproto");
    std::ifstream in(file);
    std::string line;
    std::string topology;
    while (std::getline(in, line)) {
      if (line.rfind("# topology: ", 0) == 0) {
        topology = line.substr(12);
      }
    }
    ASSERT_FALSE(topology.empty()) << w;
    for (const char* f : {"table", "json", "csv", "textproto", "binpb"}) {
      const Result r =
          run({"run", "-w", file.string(), "-t", (root() / topology).string(), "-f", f});
      EXPECT_EQ(r.code, kExitOk) << w << " " << f << ": " << r.err;
      EXPECT_FALSE(r.out.empty());
    }
  }
}

// The table says when heads were padded, and what MFU counts.
TEST(RunCommand, TableNamesPaddedHeads) {
  const std::string w = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const std::string t = (root() / "topologies/v5e-4x4.textproto").string();
  // 18 heads over 6 KV heads on the 4 chips of y (2D): 24 over 8.
  const Result padded =
      run({"run", "-w", w, "-t", t, "--set", "workload.model.heads=18", "--set",
           "workload.model.kv_heads=6", "--set", "workload.sharding.pad_heads=true"});
  ASSERT_EQ(padded.code, kExitOk) << padded.err;
  EXPECT_NE(padded.out.find("padded heads (sharding.pad_heads): 24 query / 8 KV computed for the "
                            "model's 18 / 6; MFU counts the model's\n"),
            std::string::npos)
      << padded.out;
  const Result plain = run({"run", "-w", w, "-t", t, "--set", "workload.sharding.pad_heads=true"});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  EXPECT_EQ(plain.out.find("padded heads"), std::string::npos);  // 32 / 8 split already
}

TEST(RunCommand, TheAnalyticalModelWarnsOfCollectivesOutOfStep) {
  // The tour's all-reduce over x and y: on the v5e 4x4 two lines of 4, in
  // step; with y made a ring its shares' phases differ in length, and the
  // analytical model may part from flow (engine/model_caveats.h).
  const std::string w = (root() / "workloads/collectives-tour-v5e-4x4.textproto").string();
  const std::string t = (root() / "topologies/v5e-4x4.textproto").string();
  const std::string warning = "the analytical model may time 'reduce' over [x, y] apart";
  const Result alike = run({"run", "-w", w, "-t", t, "-n", "analytical", "-q"});
  ASSERT_EQ(alike.code, kExitOk) << alike.err;
  EXPECT_EQ(alike.err.find("analytical model may"), std::string::npos) << alike.err;
  const Result unlike = run({"run", "-w", w, "-t", t, "-n", "analytical", "-q", "--set",
                             "topology.torus.dims[1].wraparound=true"});
  ASSERT_EQ(unlike.code, kExitOk) << unlike.err;
  EXPECT_NE(unlike.err.find(warning), std::string::npos) << unlike.err;
  EXPECT_EQ(unlike.err.find("'gather'"), std::string::npos) << unlike.err;  // over x alone
  const Result flow = run({"run", "-w", w, "-t", t, "-n", "flow", "-q", "--set",
                           "topology.torus.dims[1].wraparound=true"});
  ASSERT_EQ(flow.code, kExitOk) << flow.err;
  EXPECT_EQ(flow.err.find("analytical model may"), std::string::npos) << flow.err;
}

TEST(RunCommand, ConfigurationThatDoesNotFitExits1UnlessAllowed) {
  // The 8B decode workload cannot hold its weights in 1.6 GB per chip.
  const std::string w = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const auto tiny = std::filesystem::temp_directory_path() / "podsim_tiny_pod.textproto";
  {
    // The v5e 4x4 slice the workload is written for, with a tenth of the HBM.
    std::ifstream in(root() / "topologies/v5e-4x4.textproto");
    std::stringstream text;
    text << in.rdbuf();
    std::string t = text.str();
    const auto at = t.find("hbm_bytes:");
    ASSERT_NE(at, std::string::npos);
    const auto end = t.find('\n', at);
    t.replace(at, end - at, "hbm_bytes: 1600000000");
    std::ofstream(tiny) << t;
  }
  const Result r = run({"run", "-w", w, "-t", tiny.string(), "-f", "json"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  const podsim::Result oom = testing::parse_result(r.out);
  EXPECT_EQ(oom.status(), podsim::Result::oom);
  EXPECT_NE(oom.reason().find("does not fit in HBM"), std::string::npos);
  EXPECT_FALSE(oom.serving().memory().fits());
  EXPECT_FALSE(oom.serving().simulated());
  EXPECT_NE(r.err.find("does not fit in HBM"), std::string::npos) << r.err;
  const Result allowed = run({"run", "-w", w, "-t", tiny.string(), "-f", "json", "--allow-oom"});
  EXPECT_EQ(allowed.code, kExitOk) << allowed.err;
  const podsim::Result sim = testing::parse_result(allowed.out);
  EXPECT_EQ(sim.status(), podsim::Result::ok);
  EXPECT_FALSE(sim.serving().memory().fits());
  EXPECT_GT(sim.serving().step_time_us(), 0);

  // CSV: no prose on stdout, only the header and a row that says oom.
  const Result csv = run({"run", "-w", w, "-t", tiny.string(), "-f", "csv"});
  EXPECT_EQ(csv.code, kExitCheckFailed) << csv.err;
  const report::CsvDocument doc = report::parse_csv(csv.out, "oom.csv");
  EXPECT_EQ(doc.header, report::csv_columns("serving"));
  ASSERT_EQ(doc.rows.size(), 1U) << csv.out;
  EXPECT_EQ(doc.rows[0].cells[static_cast<size_t>(doc.column("status"))], "oom");
  EXPECT_NE(doc.rows[0].cells[static_cast<size_t>(doc.column("reason"))].find("does not fit"),
            std::string::npos);
  EXPECT_EQ(doc.rows[0].cells[static_cast<size_t>(doc.column("serving.memory.fits"))], "false");
  EXPECT_EQ(csv.out.find("Shard further"), std::string::npos);
}

TEST(RunCommand, InvalidInputsAreAnInvalidRowAndExit2) {
  // The v5p all-to-all names a "z" dimension; the default pod is 2D.
  const std::string w = (root() / "workloads/alltoall-v5p-8x16x16.textproto").string();
  for (const char* format : {"csv", "json"}) {
    const Result r = run({"run", "-w", w, "-f", format});
    EXPECT_EQ(r.code, kExitBadInput) << format;
    EXPECT_NE(r.err.find("alltoall-v5p-8x16x16.textproto:"), std::string::npos) << r.err;
    if (std::string(format) == "json") {
      const podsim::Result result = testing::parse_result(r.out);
      EXPECT_EQ(result.status(), podsim::Result::invalid);
      EXPECT_NE(result.reason().find("\"z\""), std::string::npos) << result.reason();
      EXPECT_EQ(result.inputs().topology().name(), "tpu-v5e-16x16");  // it loaded
      EXPECT_EQ(result.inputs().workload().file(), w);
      continue;
    }
    const report::CsvDocument doc = report::parse_csv(r.out, "invalid.csv");
    ASSERT_EQ(doc.rows.size(), 1U) << r.out;
    EXPECT_EQ(doc.rows[0].cells[static_cast<size_t>(doc.column("status"))], "invalid");
    EXPECT_NE(doc.rows[0].cells[static_cast<size_t>(doc.column("reason"))].find("\"z\""),
              std::string::npos);
  }
  // A topology that does not load: what is known is the file name.
  const Result bad =
      run({"run", "-t", (root() / "no-such-topology.textproto").string(), "-f", "json"});
  EXPECT_EQ(bad.code, kExitBadInput);
  const podsim::Result result = testing::parse_result(bad.out);
  EXPECT_EQ(result.status(), podsim::Result::invalid);
  EXPECT_NE(result.inputs().topology().file().find("no-such-topology"), std::string::npos);
}

TEST(RunCommand, WorkloadThatDoesNotFitThePodIsBadInputWithNoOutput) {
  // The v5p all-to-all names a "z" dimension; the default pod is 2D.
  const auto out_path = std::filesystem::temp_directory_path() / "podsim_run_should_not_exist.json";
  std::filesystem::remove(out_path);
  const Result r = run({"run", "-w", (root() / "workloads/alltoall-v5p-8x16x16.textproto").string(),
                        "-o", out_path.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("alltoall-v5p-8x16x16.textproto:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"z\""), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(out_path));
}

TEST(RunCommand, ARunPastTheClockIsBadInputWithNoOutput) {
  // Every size and rate within its limit, but 2^56 bytes over a 1 MB/s link
  // take longer than 2^63 ps: refused with exit 2 (it was "internal error",
  // exit 3), the file and the reason named, nothing written.
  const auto dir = std::filesystem::temp_directory_path();
  const auto workload = dir / "podsim_run_past_the_clock.textproto";
  const auto out_path = dir / "podsim_run_past_the_clock.json";
  std::filesystem::remove(out_path);
  {
    std::ofstream f(workload);
    f << "name: \"big\" mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: "
         "\"y\" } }\n"
         "operations { name: \"ar\" collective { kind: ALL_REDUCE bytes: 72057594037927936 "
         "axes: \"x\" } }\n";
  }
  for (const char* network : {"flow", "analytical"}) {
    const Result r =
        run({"run", "-t", (root() / "topologies/v5e-2x2.textproto").string(), "-w",
             workload.string(), "-n", network, "--set",
             "topology.torus.dims[0].link_bandwidth_gbps=0.001", "-o", out_path.string()});
    EXPECT_EQ(r.code, kExitBadInput) << network << ": " << r.err;
    EXPECT_NE(r.err.find("podsim_run_past_the_clock.textproto: operations: the run needs more "
                         "simulated time than podsim's clock holds"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out_path));
  }
  std::filesystem::remove(workload);
}

TEST(RunCommand, OutputsNeverReplaceInputsOrEachOther) {
  // Before, --out naming the workload overwrote it (exit 0), and --out F
  // --trace F kept only the report.
  const auto dir = std::filesystem::temp_directory_path() / "podsim_clobber_test";
  std::filesystem::create_directories(dir);
  const auto workload = dir / "w.textproto";
  std::filesystem::copy_file(root() / "workloads/matmuls-v5e-4x4.textproto", workload,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string topology = (root() / "topologies/v5e-4x4.textproto").string();
  const auto read = [](const std::filesystem::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string before = read(workload);
  Result r = run({"run", "-t", topology, "-w", workload.string(), "-o", workload.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("--out " + workload.string() + " is also the --workload input"),
            std::string::npos)
      << r.err;
  // Another spelling of the same file.
  r = run(
      {"run", "-t", topology, "-w", workload.string(), "-o", (dir / "." / "w.textproto").string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_EQ(read(workload), before);
  const auto out = dir / "x.json";
  r = run({"run", "-t", topology, "-w", workload.string(), "-o", out.string(), "--trace",
           out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("--out and --trace both name"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run({"compare", out.string(), (dir / "y.csv").string(), "--out", out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("is also the BASELINE input"), std::string::npos) << r.err;
  r = run({"topo", topology, "--out", topology});
  EXPECT_EQ(r.code, kExitBadInput);
  std::filesystem::remove_all(dir);
}

TEST(RunCommand, PacketOptionsNeedThePacketNetwork) {
  // --switching and --packet-bytes were ignored silently on other networks.
  const std::string w = (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string();
  for (const char* network : {"flow", "analytical"}) {
    Result r = run({"run", "-w", w, "-n", network, "--switching", "store-and-forward"});
    EXPECT_EQ(r.code, kExitBadInput) << network;
    EXPECT_NE(r.err.find("--switching applies to --network packet only"), std::string::npos);
    r = run({"run", "-w", w, "-n", network, "--packet-bytes", "4096"});
    EXPECT_EQ(r.code, kExitBadInput) << network;
  }
}

TEST(RunCommand, ValidateChecksWorkloadsAgainstATopology) {
  const Result ok =
      run({"validate", "--topology", (root() / "topologies/v5p-8x16x16-twisted.textproto").string(),
           (root() / "workloads/alltoall-v5p-8x16x16.textproto").string()});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_NE(ok.out.find("ok (workload"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace podsim::cli
