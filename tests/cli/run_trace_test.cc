// `podsim run --trace FILE [--trace-chips LIST]`, in-process: the trace reads
// back as a viewer would read it (tests/report/trace_check.h), agrees with
// the breakdown printed beside it, honours --trace-chips, and bad input
// exits 2 without writing anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "result_json.h"
#include "trace_check.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

namespace fs = std::filesystem;
using podsim::testing::parse_and_check_trace;
using podsim::testing::ParsedTrace;

// A fresh path in the temp directory, removed before and after the test.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_(fs::temp_directory_path() / ("podsim_trace_test_" + name)) {
    fs::remove(path_);
  }
  ~TempFile() { fs::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string str() const { return path_.string(); }
  bool exists() const { return fs::exists(path_); }
  std::string read() const {
    std::ifstream in(path_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  fs::path path_;
};

// LLaMA-3-8B prefill on v5e 4x4: four pipeline stages, tensor parallel over four.
std::vector<std::string> pipeline_run(const TempFile& trace) {
  return {"run",
          "-w",
          (root() / "workloads/llama3-8b-prefill-v5e.textproto").string(),
          "-t",
          (root() / "topologies/v5e-4x4.textproto").string(),
          "-f",
          "json",
          "--trace",
          trace.str()};
}

// The chip numbers of the compute tracks ("chip N (x,y)...").
std::set<int> traced_chips(const ParsedTrace& t) {
  std::set<int> chips;
  for (const auto& [key, name] : t.threads) {
    if (name.rfind("chip ", 0) == 0 && name.find(" (") != std::string::npos) {
      chips.insert(std::stoi(name.substr(5)));
    }
  }
  return chips;
}

TEST(RunTrace, ServingTraceAgreesWithTheBreakdown) {
  const TempFile trace("serving.json");
  const Result r = run(pipeline_run(trace));
  ASSERT_EQ(r.code, kExitOk) << r.err;
  ASSERT_TRUE(trace.exists());
  const podsim::Result report = testing::parse_result(r.out);
  const ParsedTrace t = parse_and_check_trace(trace.read());

  EXPECT_EQ(t.processes.at(1), "stage 0");
  EXPECT_EQ(t.processes.at(4), "stage 3");
  EXPECT_EQ(t.processes.at(5), "network");
  std::set<int> all;
  for (int c = 0; c < 16; ++c) {
    all.insert(c);
  }
  EXPECT_EQ(traced_chips(t), all);
  EXPECT_TRUE(t.track("axis stage"));
  EXPECT_TRUE(t.track("axis model"));

  const int critical = static_cast<int>(report.serving().critical_chip());
  EXPECT_EQ(static_cast<int>(t.doc.otherdata().critical_chip()), critical);
  const auto tracks = t.tracks_starting("chip " + std::to_string(critical) + " (");
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_NE(t.threads.at(tracks[0]).find("critical"), std::string::npos);
  double compute_ps = 0;
  for (const auto& s : t.slices.at(tracks[0])) {
    compute_ps += s.args.dur_ps();
  }
  const double expected_us = report.serving().compute_us() + report.serving().memory_us();
  EXPECT_NEAR(compute_ps * 1e-6, expected_us, 1e-6);

  int transfers = 0;
  for (const auto& [id, cat] : t.flow_cats) {
    transfers += cat == "stage_transfer" ? 1 : 0;
  }
  EXPECT_GT(transfers, 0);
}

TEST(RunTrace, TraceChipsChoosesTheChips) {
  const TempFile trace("chosen.json");
  auto args = pipeline_run(trace);
  args.insert(args.end(), {"--trace-chips", "0,5"});
  ASSERT_EQ(run(args).code, kExitOk);
  EXPECT_EQ(traced_chips(parse_and_check_trace(trace.read())), (std::set<int>{0, 5}));

  args.back() = "critical";
  const Result r = run(args);
  ASSERT_EQ(r.code, kExitOk);
  const int critical = static_cast<int>(testing::parse_result(r.out).serving().critical_chip());
  EXPECT_EQ(traced_chips(parse_and_check_trace(trace.read())), (std::set<int>{critical}));
}

TEST(RunTrace, BadTraceChipsExits2AndWritesNothing) {
  const TempFile trace("bad.json");
  const TempFile out("bad_out.json");
  for (const char* bad : {"abc", "16", "5-2", "", "0,,1", "-3"}) {
    auto args = pipeline_run(trace);
    args.insert(args.end(), {"--trace-chips", bad, "--out", out.str()});
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << "'" << bad << "'";
    EXPECT_NE(r.err.find("--trace-chips"), std::string::npos) << r.err;
    EXPECT_FALSE(trace.exists()) << bad;
    EXPECT_FALSE(out.exists()) << bad;
    EXPECT_TRUE(r.out.empty());
  }
}

// --trace-units LAYER: the critical chip's units running that layer, in a
// process of its own; the other tracks are unchanged.
TEST(RunTrace, TraceUnitsAddsTheCriticalChipsUnitTracks) {
  const TempFile plain("plain.json");
  ASSERT_EQ(run(pipeline_run(plain)).code, kExitOk);
  const TempFile trace("units.json");
  auto args = pipeline_run(trace);
  args.insert(args.end(), {"--compute", "tensorcore", "--trace-units", "L2"});
  const Result r = run(args);
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const ParsedTrace t = parse_and_check_trace(trace.read());
  const int critical = static_cast<int>(testing::parse_result(r.out).serving().critical_chip());
  const ParsedTrace p = parse_and_check_trace(plain.read());
  ASSERT_EQ(t.processes.size(), p.processes.size() + 1);
  EXPECT_EQ(t.processes.rbegin()->second, "chip " + std::to_string(critical) + " units, layer L2");
  for (const char* unit : {"MXU", "vector unit", "issue", "DMA"}) {
    EXPECT_TRUE(t.track(unit)) << unit;
  }
  // A layer of another pipeline stage than the critical chip's is said to
  // leave the tracks empty (LLaMA-3-8B's 32 layers over 4 stages: the
  // critical stage holds 8 of them, so one of L2 and L30 is elsewhere).
  std::string warned;
  for (const char* layer : {"L2", "L30"}) {
    auto other = pipeline_run(trace);
    other.insert(other.end(), {"--compute", "tensorcore", "--trace-units", layer});
    const Result o = run(other);
    ASSERT_EQ(o.code, kExitOk) << o.err;
    if (o.err.find("runs no compute of that layer") != std::string::npos)
      warned += layer;
  }
  EXPECT_FALSE(warned.empty());
  EXPECT_NE(warned, "L2L30");
  // Each layer's activation runs inside its up projection (1D tensor
  // parallelism): its slice names the matmul and takes no time.
  const uint64_t fused = testing::parse_result(r.out).serving().fused_epilogues();
  EXPECT_GT(fused, 0u);
  uint64_t named = 0;
  for (const auto& [track, slices] : t.slices) {
    for (const auto& s : slices) {
      if (!s.args.fused_into().empty()) {
        EXPECT_EQ(s.dur_ns, 0) << s.name;
        ++named;
      }
    }
  }
  EXPECT_GE(named, fused);
}

TEST(RunTrace, BadTraceUnitsExits2AndWritesNothing) {
  const TempFile trace("bad_units.json");
  // LLaMA-3-8B has 32 layers: 0 to 31.
  for (const char* bad : {"32", "L32", "x", "", "L", "-1", "L1.5"}) {
    auto args = pipeline_run(trace);
    args.insert(args.end(), {"--trace-units", bad});
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << "'" << bad << "'";
    EXPECT_NE(r.err.find("--trace-units"), std::string::npos) << r.err;
    EXPECT_FALSE(trace.exists()) << bad;
  }
  const Result no_trace = run({"run", "--trace-units", "3"});
  EXPECT_EQ(no_trace.code, kExitBadInput);
  EXPECT_NE(no_trace.err.find("--trace-units needs --trace"), std::string::npos) << no_trace.err;
  const Result op_list =
      run({"run", "-w", (root() / "workloads/allreduce-1gib-v5e-16x16.textproto").string(),
           "--trace", trace.str(), "--trace-units", "0"});
  EXPECT_EQ(op_list.code, kExitBadInput);
  EXPECT_NE(op_list.err.find("applies to a serving workload"), std::string::npos) << op_list.err;
  EXPECT_FALSE(trace.exists());
}

TEST(RunTrace, TraceChipsWithoutTraceIsUsageError) {
  const Result r = run({"run", "--trace-chips", "0"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("--trace-chips needs --trace"), std::string::npos) << r.err;
}

TEST(RunTrace, ATraceIntoAMissingDirectoryFailsBeforeTheRun) {
  const Result r = run({"run", "--trace", "/nonexistent-podsim-dir/t.json"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("no such directory"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(RunTrace, NoTraceWhenTheStepIsNotSimulated) {
  // LLaMA-3-70B on four 16 GB chips does not fit: exit 1, nothing simulated.
  const TempFile trace("oom.json");
  const Result r =
      run({"run", "-w", (root() / "workloads/llama3-70b-decode-v5e.textproto").string(), "-t",
           (root() / "topologies/v5e-2x2.textproto").string(), "--trace", trace.str()});
  EXPECT_EQ(r.code, kExitCheckFailed) << r.err;
  EXPECT_FALSE(trace.exists());
  EXPECT_NE(r.err.find("no trace written"), std::string::npos) << r.err;
}

TEST(RunTrace, FoldedChipsAreTracedAsTheirRepresentatives) {
  // The default: LLaMA-3-70B decode on v5e 16x16, replicas folded.
  const TempFile trace("folded.json");
  const Result r = run({"run", "--trace", trace.str(), "--trace-chips", "255"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const ParsedTrace t = parse_and_check_trace(trace.read());
  EXPECT_EQ(traced_chips(t).size(), 1u);
  const auto& notes = t.doc.otherdata().notes();
  ASSERT_EQ(notes.size(), 2);
  EXPECT_NE(notes[0].find("replica folding"), std::string::npos);
  EXPECT_NE(notes[1].find("255->"), std::string::npos);
}

TEST(RunTrace, OperationListTraceHasATrackPerOperation) {
  const TempFile trace("ops.json");
  const Result r =
      run({"run", "-w", (root() / "workloads/collectives-tour-v5e-4x4.textproto").string(), "-t",
           (root() / "topologies/v5e-4x4.textproto").string(), "--trace", trace.str()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const ParsedTrace t = parse_and_check_trace(trace.read());
  EXPECT_EQ(t.processes.at(1), "operations");
  EXPECT_EQ(t.processes.at(2), "network");
  for (const char* op : {"gather", "scatter", "reduce", "shuffle", "bcast", "shift"}) {
    const auto track = t.track(op);
    ASSERT_TRUE(track) << op;
    EXPECT_EQ(t.slices.at(*track).front().name, op);
  }
  EXPECT_TRUE(t.track("axis x"));
  EXPECT_TRUE(t.track("axis y"));
}

}  // namespace
}  // namespace podsim::cli
