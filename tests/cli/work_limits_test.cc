// --max-events, --max-memory-mb, --max-wall-seconds (issue 12 point 4): a run
// past a limit stops with exit 1, a message naming the limit, and no output
// file; a run whose lower bound already passes a limit is refused before it
// starts; the defaults leave shipped workloads alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("podsim_work_limits_" + name);
}

// An all-reduce over the 4x4's 16 chips, `repeat` times: 384 transfers a
// run (coll::min_transfers: two shares of four ring phases), which the
// estimate counts before the run starts, and 386 events in truth on the
// flow network.
std::string repeated_allreduce(int repeat) {
  const auto path = scratch("allreduce_" + std::to_string(repeat) + ".textproto");
  std::ofstream(path)
      << "name: \"repeated\"\n"
         "mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" } }\n"
         "operations { name: \"sum\" repeat: "
      << repeat << "\n  collective { kind: ALL_REDUCE bytes: 1048576 axes: [\"x\", \"y\"] } }\n";
  return path.string();
}

std::string v5e_4x4() {
  return (root() / "topologies/v5e-4x4.textproto").string();
}

// A serving step's estimate counts only its instructions (about 500 here),
// so an event limit between that and its 52,000 events stops it while it runs.
std::string llama3_8b_decode() {
  return (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
}

TEST(WorkLimits, AnEventLimitStopsTheRunAndWritesNothing) {
  const auto out = scratch("stopped.json");
  std::filesystem::remove(out);
  const Result r = run({"run", "-t", v5e_4x4(), "-w", llama3_8b_decode(), "--max-events", "5000",
                        "-f", "json", "-o", out.string()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("podsim: stopped after"));
  EXPECT_THAT(r.err, HasSubstr("over the limit of 5000 (--max-events)"));
  EXPECT_THAT(r.err, HasSubstr("No result was written"));
  EXPECT_FALSE(std::filesystem::exists(out));
  // The same run with the default limits completes.
  const Result ok = run({"run", "-t", v5e_4x4(), "-w", llama3_8b_decode(), "-f", "csv"});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
}

// The collectives of an operation list are counted once lowered: 400 runs
// of 384 transfers are refused under a 100,000-event limit before the first
// event, where the bound before lowering (one delivery to each of half the
// chips, 3,200) let it start; 200 runs (76,800) start and finish.
TEST(WorkLimits, LoweredCollectivesAreCountedBeforeTheRunStarts) {
  const Result r = run({"run", "-t", v5e_4x4(), "-w", repeated_allreduce(400), "--max-events",
                        "100000", "-f", "csv"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("not started: estimated at least 153600 events"));
  const Result ok = run({"run", "-t", v5e_4x4(), "-w", repeated_allreduce(200), "--max-events",
                         "100000", "-f", "csv"});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
}

// Issue 12 item 7: the 1 GiB all-reduce on a 2^20-chip pod (1024 x 1024)
// ran for minutes with nothing said; here on 512 x 512 (2^18 chips, a
// quarter of the memory). Played on every chip (--no-symmetry), its rings'
// 1.07e9 transfers (2^30: a balanced even ring of 512 takes 256 steps each
// way) are counted before it starts: refused under a lower
// limit, announced under the default, and then stopped by the wall-time
// limit. Played one chip per class (the default) it is one chip's 4096
// transfers, and finishes.
TEST(WorkLimits, AQuarterMillionChipAllReduceIsEstimatedBeforeItStarts) {
  const std::vector<std::string> pod = {
      "-t",    (root() / "topologies/v5e-16x16.textproto").string(),
      "-w",    (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(),
      "--set", "topology.torus.dims[0].size=512",
      "--set", "topology.torus.dims[1].size=512"};
  auto with = [&pod](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), pod.begin(), pod.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const Result refused = run(with({"--no-symmetry", "--max-events", "1e9"}));
  EXPECT_EQ(refused.code, kExitCheckFailed) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("not started: estimated at least 1073741824 events"));
  const Result announced = run(with({"--no-symmetry", "--max-wall-seconds", "0.5", "-f", "csv"}));
  EXPECT_EQ(announced.code, kExitCheckFailed) << announced.err;
  EXPECT_THAT(announced.err,
              HasSubstr("podsim: note: this run is estimated at 1073741824 events or more"));
  EXPECT_THAT(announced.err, HasSubstr("20000000000 events (--max-events) or 0.5 s"));
  EXPECT_THAT(announced.err, HasSubstr("over the limit of 0.5 s (--max-wall-seconds)"));
  EXPECT_TRUE(announced.out.empty());
  const Result symmetric = run(with({"--max-events", "1e6", "-f", "csv"}));
  EXPECT_EQ(symmetric.code, 0) << symmetric.err;
  EXPECT_THAT(symmetric.out, HasSubstr("symmetric"));
}

// Issue 27: three operations of `repeat: 1000000` (1.45e8 events once their
// collectives are lowered, minutes of wall time) ran with no note; the
// announcement now starts at 10^8 events. Stopped at once by a wall limit.
TEST(WorkLimits, AMillionRepeatOperationListIsAnnounced) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("podsim_repeat_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path w = dir / "repeat.textproto";
  std::ofstream(w) << R"(name: "repeat"
mesh { axes { name: "x" dims: "x" } axes { name: "y" dims: "y" } }
operations { name: "a" repeat: 1000000 collective { kind: ALL_REDUCE bytes: 1048576 axes: ["x"] } }
operations { name: "b" repeat: 1000000 after: "a"
             collective { kind: ALL_GATHER bytes: 1048576 axes: ["y"] } }
operations { name: "c" repeat: 1000000 after: "b"
             compute { matmul { m: 8 k: 8192 n: 8192 activation_dtype: BF16 weight_dtype: BF16 } } }
)";
  const Result r =
      run({"run", "-w", w.string(), "-t", (root() / "topologies/v5e-4x4.textproto").string(),
           "--max-wall-seconds", "0.2", "-f", "csv"});
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("podsim: note: this run is estimated at 145000000 events or more"));
}

TEST(WorkLimits, WallTimeLimitStopsALongRun) {
  const Result r = run({"run", "-t", v5e_4x4(), "-w", repeated_allreduce(100000),
                        "--max-wall-seconds", "0.2", "-f", "csv"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(--max-wall-seconds)"));
  EXPECT_TRUE(r.out.empty());
}

TEST(WorkLimits, AnEstimatePastTheLimitIsRefusedBeforeItStarts) {
  // 12 operations of a million runs each (issue 12 item 7: 66 s): at least
  // 1.2e7 events, refused at once under a 1e6 limit.
  const auto path = scratch("million.textproto");
  {
    std::ofstream w(path);
    w << "name: \"million\"\nmesh { axes { name: \"x\" dims: \"x\" } }\n";
    for (int i = 0; i < 12; ++i) {
      w << "operations { name: \"op" << i
        << "\" repeat: 1000000 compute { matmul { m: 8 k: 8 n: 8 } } }\n";
    }
  }
  const Result r = run({"run", "-t", v5e_4x4(), "-w", path.string(), "--max-events", "1000000"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("not started: estimated at least 12000000 events"));
  // --packet-bytes 1 on the shipped 1 GiB all-reduce (issue 12 item 7: past
  // 4 GB of memory): at least 128 chips x 2^29 packets, over the default.
  const Result p = run({"run", "-t", (root() / "topologies/v5e-16x16.textproto").string(), "-w",
                        (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(),
                        "--network", "packet", "--packet-bytes", "1"});
  EXPECT_EQ(p.code, kExitCheckFailed) << p.err;
  EXPECT_THAT(p.err, HasSubstr("not started: estimated at least"));
  EXPECT_THAT(p.err, HasSubstr("(--max-events)"));
}

// Issue 12 item 2: a 2^56-byte all-reduce on the packet network never
// ended; its lower bound (2^55 bytes to each of 8 chips in 64 KiB packets)
// is refused before it starts.
TEST(WorkLimits, AHugePacketCollectiveIsRefusedBeforeItStarts) {
  const auto path = scratch("huge.textproto");
  std::ofstream(path)
      << "name: \"huge\"\n"
         "mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" } }\n"
         "operations { name: \"sum\" collective { kind: ALL_REDUCE bytes: "
         "72057594037927936 axes: [\"x\", \"y\"] } }\n";
  const Result r = run({"run", "-t", v5e_4x4(), "-w", path.string(), "--network", "packet"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("not started: estimated at least 4398046511104 events"));
}

TEST(WorkLimits, ServingStepsAreLimitedToo) {
  const Result r =
      run({"run", "-t", v5e_4x4(), "-w",
           (root() / "workloads/llama3-8b-decode-v5e.textproto").string(), "--max-events", "1"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(--max-events)"));
}

// podsim serve and podsim capacity take the same limits: the fleet's own
// events, and each step's pod simulation.
TEST(WorkLimits, ServeAndCapacityAreLimitedToo) {
  const std::string serve_file =
      (root() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
  const auto requests = scratch("serve_requests.csv");
  std::filesystem::remove(requests);
  const Result r =
      run({"serve", serve_file, "--max-events", "1000", "--requests", requests.string()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("over the limit of 1000 (--max-events)"));
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(std::filesystem::exists(requests));
  const Result ok = run({"serve", serve_file, "--requests", requests.string()});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  EXPECT_TRUE(std::filesystem::exists(requests));
  // On one thread or several (a probe's limit is carried to the search's
  // path as a limit, not as an internal error).
  for (const char* jobs : {"1", "2"}) {
    const Result c = run({"capacity", serve_file, "--max-events", "1000", "--jobs", jobs});
    EXPECT_EQ(c.code, kExitCheckFailed) << jobs << ": " << c.err;
    EXPECT_THAT(c.err, HasSubstr("(--max-events)"));
  }
}

TEST(WorkLimits, BadLimitsAreUsageErrors) {
  for (const char* bad : {"-1", "nan", "1e30"}) {
    SCOPED_TRACE(bad);
    const Result r = run({"run", "--max-events", bad});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_THAT(r.err, HasSubstr("--max-events must be a number from 0"));
  }
  // Issue 27: the refused value was printed with std::to_string, 1e300 as
  // 301 digits and six decimals, 2^64 with six decimals.
  const Result huge = run({"run", "--max-wall-seconds", "1e300"});
  EXPECT_EQ(huge.code, kExitBadInput);
  EXPECT_THAT(huge.err, HasSubstr("got 1e+300\n"));
  const Result two64 = run({"run", "--max-events", "18446744073709551616"});
  EXPECT_THAT(two64.err, HasSubstr("got 18446744073709551616\n"));
}

TEST(WorkLimits, SweepsStopAtThePointPastALimit) {
  const auto sweep = scratch("sweep.textproto");
  std::ofstream(sweep)
      << "name: \"limited\"\ntopology: \"" << v5e_4x4() << "\"\nworkload: \"" << llama3_8b_decode()
      << "\"\nparameters { path: \"workload.scenario.batch\" values: [\"256\"] }\n";
  const auto out = scratch("sweep.csv");
  std::filesystem::remove(out);
  const Result r = run({"sweep", sweep.string(), "--max-events", "5000", "-o", out.string()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("sweep point 0: stopped after"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A grid of cheap points (analytical network): 64 batches x 1000 link
// bandwidths = 64,000 points, minutes of work.
std::string big_sweep() {
  const auto sweep = scratch("big_sweep.textproto");
  std::ofstream(sweep) << "name: \"big\"\ntopology: \"" << v5e_4x4() << "\"\nworkload: \""
                       << llama3_8b_decode()
                       << "\"\nnetwork: \"analytical\"\n"
                          "parameters { path: \"workload.scenario.batch\" linear { start: 16 "
                          "stop: 1024 step: 16 } }\n"
                          "parameters { path: \"topology.torus.dims[0].link_bandwidth_gbps\" "
                          "linear { start: 1 stop: 1000 step: 1 } }\n";
  return sweep.string();
}

TEST(WorkLimits, WallTimeBoundsAWholeSweep) {
  // Issue 27: a 64,000-point sweep under --max-wall-seconds 2 ran 36 s and
  // exited 0, each point being far under the limit.
  const auto out = scratch("big_sweep.csv");
  std::filesystem::remove(out);
  const auto start = std::chrono::steady_clock::now();
  const Result r =
      run({"sweep", big_sweep(), "--jobs", "2", "--max-wall-seconds", "0.5", "-o", out.string()});
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("over the limit of 0.5 s (--max-wall-seconds bounds the whole sweep)"));
  EXPECT_FALSE(std::filesystem::exists(out)) << "no partial output";
  EXPECT_LT(took, 10.0) << "stopped at the limit, not after every point";
}

TEST(WorkLimits, EventsAreSummedOverASweepsPoints) {
  // Each point runs about 52,000 events, under a limit of 120,000; the
  // three together do not fit in it.
  const auto sweep = scratch("summed.textproto");
  std::ofstream(sweep)
      << "name: \"summed\"\ntopology: \"" << v5e_4x4() << "\"\nworkload: \"" << llama3_8b_decode()
      << "\"\nparameters { path: \"topology.torus.dims[0].link_bandwidth_gbps\" values: [\"25\", "
         "\"50\", \"100\"] }\n";
  const auto out = scratch("summed.csv");
  std::filesystem::remove(out);
  const Result each = run({"sweep", sweep.string(), "--max-events", "120000", "--max-wall-seconds",
                           "0", "--jobs", "1", "-o", out.string()});
  EXPECT_EQ(each.code, kExitCheckFailed) << each.err;
  EXPECT_THAT(each.err, HasSubstr("(--max-events bounds the sum over the sweep's points)"));
  EXPECT_FALSE(std::filesystem::exists(out));
  const Result all = run({"sweep", sweep.string(), "--max-events", "200000", "-o", out.string()});
  EXPECT_EQ(all.code, kExitOk) << all.err;
  std::filesystem::remove(out);
}

TEST(WorkLimits, BadRankTimeoutIsAUsageError) {
  const Result r = run({"sweep", big_sweep(), "--rank-timeout-seconds", "-1"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--rank-timeout-seconds must be a number from 0"));
}

// search and capacity run across MPI ranks too: the same option, checked
// the same way, before any work.
TEST(WorkLimits, SearchAndCapacityTakeTheRankTimeout) {
  const std::string serve = (root() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
  const std::vector<std::vector<std::string>> commands = {
      {"search", "--model", llama3_8b_decode(), "--topology", v5e_4x4(), "--phase", "decode",
       "--context", "1024"},
      {"capacity", serve}};
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--rank-timeout-seconds", "nan"});
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("--rank-timeout-seconds must be a number from 0")) << args[0];
    const Result help = run({args[0], "--help"});
    EXPECT_THAT(help.out, HasSubstr("--rank-timeout-seconds")) << args[0];
  }
}

}  // namespace
}  // namespace podsim::cli
