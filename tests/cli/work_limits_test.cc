// --max-events, --max-memory-mb, --max-wall-seconds (issue 12 point 4): a run
// past a limit stops with exit 1, a message naming the limit, and no output
// file; a run whose lower bound already passes a limit is refused before it
// starts; the defaults leave shipped workloads alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

// An all-reduce over the 4x4's 16 chips, `repeat` times: a lower bound of 8
// events a run (one delivery to each of half the chips), some thousand in
// truth on the flow network.
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

TEST(WorkLimits, AnEventLimitStopsTheRunAndWritesNothing) {
  const auto out = scratch("stopped.json");
  std::filesystem::remove(out);
  const Result r = run({"run", "-t", v5e_4x4(), "-w", repeated_allreduce(400), "--max-events",
                        "100000", "-f", "json", "-o", out.string()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("over the limit of 100000 (--max-events)"));
  EXPECT_THAT(r.err, HasSubstr("No result was written"));
  EXPECT_FALSE(std::filesystem::exists(out));
  // The same run with the default limits completes.
  const Result ok = run({"run", "-t", v5e_4x4(), "-w", repeated_allreduce(400), "-f", "csv"});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
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

TEST(WorkLimits, BadLimitsAreUsageErrors) {
  for (const char* bad : {"-1", "nan", "1e30"}) {
    SCOPED_TRACE(bad);
    const Result r = run({"run", "--max-events", bad});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_THAT(r.err, HasSubstr("--max-events must be a number from 0"));
  }
}

TEST(WorkLimits, SweepsStopAtThePointPastALimit) {
  const auto sweep = scratch("sweep.textproto");
  std::ofstream(sweep)
      << "name: \"limited\"\ntopology: \"" << v5e_4x4() << "\"\nworkload: \""
      << repeated_allreduce(400)
      << "\"\nparameters { path: \"workload.operations[0].repeat\" values: [\"400\"] }\n";
  const auto out = scratch("sweep.csv");
  std::filesystem::remove(out);
  const Result r = run({"sweep", sweep.string(), "--max-events", "100000", "-o", out.string()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_THAT(r.err, HasSubstr("sweep point 0: stopped after"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace podsim::cli
