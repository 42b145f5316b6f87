// Pods cut apart by dead chips or failed links (issue 27): a workload that
// needs a route across the cut is refused with exit 2 naming the cut, in
// `run`, `sweep` (an invalid row, the other points run), `serve` (a
// replica's pod, and the KV transfers' ICI slice), never "internal error:
// no route" (exit 3); a cut the workload never crosses still runs; and
// `podsim topo` reports the diameter over live chips or names the parts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

// A file in a scratch directory of this test, removed with it.
class Scratch {
 public:
  // One directory per test: CTest runs this binary's tests as processes
  // side by side, and each removes its directory when done.
  Scratch()
      : dir_(fs::temp_directory_path() /
             (std::string("podsim_partition_test_") +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::create_directories(dir_);
  }
  ~Scratch() { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

 private:
  fs::path dir_;
};

std::string shipped(const std::string& path) {
  std::ifstream in(root() / path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// v5e 2x2 with (0,1) and (1,0) dead: (0,0) and (1,1) cannot reach each other.
std::string cut_2x2() {
  return shipped("topologies/v5e-2x2.textproto") +
         "dead_chips { coords: [0, 1] }\ndead_chips { coords: [1, 0] }\n";
}

// v5e 2x2 with both links of (0,0) failed: (0,0) alone, three chips apart.
std::string isolated_corner_2x2() {
  return shipped("topologies/v5e-2x2.textproto") +
         "failed_links { coords: [0, 0] dim: 0 direction: 1 }\n"
         "failed_links { coords: [0, 0] dim: 1 direction: 1 }\n";
}

std::string send(uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy) {
  return "name: \"send\" mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" "
         "} }\noperations { name: \"move\" collective { kind: SEND bytes: 1048576 pairs { src { "
         "coords: [" +
         std::to_string(sx) + ", " + std::to_string(sy) + "] } dst { coords: [" +
         std::to_string(dx) + ", " + std::to_string(dy) + "] } } } }\n";
}

const char* kAllReduce =
    "name: \"ar\" mesh { axes { name: \"x\" dims: \"x\" } axes { name: \"y\" dims: \"y\" } }\n"
    "operations { name: \"ar\" collective { kind: ALL_REDUCE bytes: 1048576 axes: [\"x\", \"y\"] "
    "} }\n";

TEST(Partition, ASendAcrossDeadChipsIsBadInputNamingTheCut) {
  const Scratch s;
  const std::string topo = s.write("cut.textproto", cut_2x2());
  const std::string work = s.write("send.textproto", send(0, 0, 1, 1));
  EXPECT_EQ(run({"validate", topo, work}).code, kExitOk);  // each file is fine alone
  for (const char* network : {"flow", "analytical", "packet"}) {
    const Result r = run({"run", "-t", topo, "-w", work, "-n", network});
    EXPECT_EQ(r.code, kExitBadInput) << network << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("cut.textproto: dead_chips: operation 'move' (send) needs a "
                                 "route from chip (0,0) to chip (1,1)"));
    EXPECT_THAT(r.err, HasSubstr("cannot reach each other: {(0,0)} and {(1,1)}"));
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr("internal error")));
  }
  // A machine-readable format still gets its invalid result.
  const Result json = run({"run", "-t", topo, "-w", work, "-f", "json"});
  EXPECT_EQ(json.code, kExitBadInput);
  EXPECT_THAT(json.out, HasSubstr("\"status\": \"invalid\""));
}

TEST(Partition, AnAllReduceOverAnIsolatedChipIsBadInput) {
  const Scratch s;
  const Result r = run({"run", "-t", s.write("corner.textproto", isolated_corner_2x2()), "-w",
                        s.write("ar.textproto", kAllReduce)});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_THAT(r.err, HasSubstr("corner.textproto: failed_links: operation 'ar' (all-reduce over "
                               "x,y) needs a route"));
  EXPECT_THAT(r.err, HasSubstr("{(1,0), (0,1), (1,1)} and {(0,0)}"));
}

TEST(Partition, ACutTheWorkloadNeverCrossesStillRuns) {
  // v5e 4x4 with (1,0) and (0,1) dead: (0,0) is cut off, the rest is joined.
  const Scratch s;
  const std::string topo = s.write("corner.textproto", shipped("topologies/v5e-4x4.textproto") +
                                                           "dead_chips { coords: [1, 0] }\n"
                                                           "dead_chips { coords: [0, 1] }\n");
  const Result ok = run({"run", "-t", topo, "-w", s.write("far.textproto", send(1, 1, 3, 3))});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  const Result cut = run({"run", "-t", topo, "-w", s.write("near.textproto", send(0, 0, 3, 3))});
  EXPECT_EQ(cut.code, kExitBadInput) << cut.err;
  EXPECT_THAT(cut.err, HasSubstr("{13 chips: (2,0), (3,0), (1,1), (2,1), ...} and {(0,0)}"));
}

TEST(Partition, ASweepPointAcrossTheCutIsAnInvalidRowAndTheOthersRun) {
  const Scratch s;
  const std::string topo = s.write("corner.textproto", shipped("topologies/v5e-4x4.textproto") +
                                                           "dead_chips { coords: [1, 0] }\n"
                                                           "dead_chips { coords: [0, 1] }\n");
  const std::string work = s.write("send.textproto", send(0, 0, 3, 3));
  const std::string sweep =
      s.write("sweep.textproto", "topology: \"" + topo + "\"\nworkload: \"" + work +
                                     "\"\nparameters { path: "
                                     "\"workload.operations[0].collective.pairs[0].src.coords[1]\" "
                                     "values: [\"0\", \"2\"] }\n");
  const Result r = run({"sweep", sweep});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("invalid"));
  EXPECT_THAT(r.out, HasSubstr("cannot reach each other"));
  EXPECT_THAT(r.err, HasSubstr("1 ok"));
  EXPECT_THAT(r.err, HasSubstr("1 invalid"));
}

TEST(Partition, ASearchOnACutPodRulesOutTheShardingsThatCrossIt) {
  // Every sharding that joins (0,0) to the other chips is invalid, named as
  // such; none is an internal error (the search used to die on the first).
  const Scratch s;
  const Result r =
      run({"search", "--model", (root() / "workloads/llama3-8b-decode-v5e.textproto").string(),
           "--topology", s.write("corner.textproto", isolated_corner_2x2()), "--phase", "decode",
           "--context", "1024", "--batches", "8,16"});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;  // none valid: the others do not fit in HBM
  EXPECT_THAT(r.err, HasSubstr("needs a route from chip (0,0)"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("internal error")));
}

// A serve file of one prefill and one decode LLaMA-3-8B replica on v5e
// 2x2 slices; `kv` is its kv_transfer, `topology` the replicas' pod.
std::string serve_file(const std::string& topology, const std::string& kv) {
  const std::string work = (root() / "workloads/serve/llama3-8b-v5e-2x2.textproto").string();
  std::string text;
  for (const char* role : {"ROLE_PREFILL", "ROLE_DECODE"})
    text += std::string("replicas { name: \"") + role + "\" role: " + role + " topology: \"" +
            topology + "\" workload: \"" + work +
            "\" scheduler: CONTINUOUS_BATCHING max_batch: 8 max_tokens_per_step: 4096 }\n";
  return text + kv +
         "arrivals { poisson { rate_per_s: 1 } prompt_tokens { fixed: 64 } output_tokens { fixed: "
         "4 } }\nrequests: 4\nseed: 1\n";
}

TEST(Partition, AServeReplicaOnACutPodIsBadInputNamingTheServeFile) {
  const Scratch s;
  const std::string file =
      s.write("replica.serve.textproto",
              serve_file(s.write("corner.textproto", isolated_corner_2x2()),
                         "kv_transfer { bandwidth_gbps_per_chip: 3.125 latency_us: 10 }\n"));
  for (const char* command : {"serve", "capacity"}) {
    const Result r = command == std::string("serve") ? run({command, file})
                                                     : run({command, file, "--ttft-ms", "1000"});
    EXPECT_EQ(r.code, kExitBadInput) << command << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("replica.serve.textproto: replicas:"));
    EXPECT_THAT(r.err, HasSubstr("cannot reach each other"));
  }
}

TEST(Partition, KvTransfersAcrossACutIciSliceAreBadInput) {
  // The copies tile a v5e 4x2 slice, prefill at x 0-1 and decode at x 2-3;
  // both x links between x = 1 and x = 2 failed: every cache crosses the cut.
  const Scratch s;
  std::string slice = shipped("topologies/v5e-2x2.textproto");
  slice.replace(slice.find("size: 2"), 7, "size: 4");
  slice +=
      "failed_links { coords: [1, 0] dim: 0 direction: 1 }\n"
      "failed_links { coords: [1, 1] dim: 0 direction: 1 }\n";
  const std::string file = s.write(
      "kv.serve.textproto",
      serve_file((root() / "topologies/v5e-2x2.textproto").string(),
                 "kv_transfer { ici_topology: \"" + s.write("slice.textproto", slice) + "\" }\n"));
  const Result r = run({"serve", file});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_THAT(r.err, HasSubstr("kv.serve.textproto: kv_transfer.ici_topology: the KV transfer "
                               "topology "));
  EXPECT_THAT(r.err,
              HasSubstr("the KV cache transfer from replica copy 0 to copy 1 needs a route"));
  EXPECT_THAT(r.err, HasSubstr("{(0,0), (1,0), (0,1), (1,1)} and {(2,0), (3,0), (2,1), (3,1)}"));
}

TEST(Partition, ReshardedKvTransfersAcrossACutIciSliceAreBadInput) {
  // As above with kv_transfer.reshard: every pair of the resharding pattern
  // (fleet/kv_reshard.h) is checked before the fleet runs.
  const Scratch s;
  std::string slice = shipped("topologies/v5e-2x2.textproto");
  slice.replace(slice.find("size: 2"), 7, "size: 4");
  slice +=
      "failed_links { coords: [1, 0] dim: 0 direction: 1 }\n"
      "failed_links { coords: [1, 1] dim: 0 direction: 1 }\n";
  const std::string file =
      s.write("kv.serve.textproto",
              serve_file((root() / "topologies/v5e-2x2.textproto").string(),
                         "kv_transfer { ici_topology: \"" + s.write("slice.textproto", slice) +
                             "\" reshard: true }\n"));
  const Result r = run({"serve", file});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_THAT(r.err, HasSubstr("kv.serve.textproto: kv_transfer.ici_topology: the KV transfer "
                               "topology "));
  EXPECT_THAT(r.err, HasSubstr("the resharded KV cache transfer from replica copy 0 to copy 1 "
                               "needs a route"));
}

TEST(Partition, TopoReportsTheDiameterOverLiveChipsOrNamesTheParts) {
  const Scratch s;
  const std::string cut = s.write("cut.textproto", cut_2x2());
  const Result table = run({"topo", cut});
  ASSERT_EQ(table.code, kExitOk) << table.err;
  EXPECT_THAT(table.out, HasSubstr("disconnected: {(0,0)} and {(1,1)}"));
  const Result json = run({"topo", cut, "-f", "json"});
  EXPECT_THAT(json.out, HasSubstr("\"disconnected\": \"{(0,0)} and {(1,1)}\""));
  EXPECT_THAT(json.out, ::testing::Not(HasSubstr("diameter_hops")));
  const Result csv = run({"topo", cut, "-f", "csv"});
  EXPECT_THAT(csv.out, HasSubstr(",disconnected\n"));
  EXPECT_THAT(csv.out, HasSubstr(",\"{(0,0)} and {(1,1)}\"\n"));  // quoted: it has commas

  // A wall of dead chips: the routes go round it, (0,0) to (3,0) in 9 hops,
  // not the closed form's 6.
  const std::string walled = s.write("walled.textproto", shipped("topologies/v5e-4x4.textproto") +
                                                             "dead_chips { coords: [1, 0] }\n"
                                                             "dead_chips { coords: [1, 1] }\n"
                                                             "dead_chips { coords: [1, 2] }\n");
  EXPECT_THAT(run({"topo", walled}).out, HasSubstr("9 hops"));
  EXPECT_THAT(run({"topo", walled, "-f", "json"}).out, HasSubstr("\"diameter_hops\": 9"));
}

}  // namespace
}  // namespace podsim::cli
