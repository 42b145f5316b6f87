// `podsim compare`, in-process: exit codes 0 (nothing moved), 1 (something
// did), 2 (bad input or usage, with file:line), on files written here and on
// what `podsim run --format csv` writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "report/result_inputs.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kHeader = "schema_version,topology,workload,network,step_time_us,mfu\n";

class CompareCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("podsim_compare_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  std::filesystem::path dir_;
};

TEST_F(CompareCommand, IdenticalFilesExitZero) {
  const std::string rows = "1,v5e,w1,flow,100,0.5\n1,v5e,w2,flow,200,0.25\n";
  const Result r = run({"compare", write("a.csv", kHeader + std::string(rows)),
                        write("b.csv", kHeader + std::string(rows))});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_THAT(r.out, HasSubstr("OK: nothing moved (2 scenarios matched, 4 values compared"));
  EXPECT_EQ(r.err, "");
}

TEST_F(CompareCommand, AMovedValueExitsOneAndIsListed) {
  const std::string a = write("a.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n"));
  const std::string b = write("b.csv", kHeader + std::string("1,v5e,w1,flow,103,0.5\n"));
  const Result r = run({"compare", a, b});
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_THAT(r.out, HasSubstr("step_time_us"));
  EXPECT_THAT(r.out, HasSubstr("FAIL: 1 value moved in 1 scenario"));
  // Within tolerance: relative 5%, or 3.5 us absolute.
  EXPECT_EQ(run({"compare", a, b, "--rel-tol", "0.05"}).code, kExitOk);
  EXPECT_EQ(run({"compare", a, b, "--rel-tol", "0", "--abs-tol-us", "3.5"}).code, kExitOk);
  EXPECT_EQ(run({"compare", a, b, "--rel-tol", "0", "--abs-tol-us", "2.5"}).code, kExitCheckFailed);
}

TEST_F(CompareCommand, AppearedAndDisappearedRowsExitOne) {
  const std::string a = write("a.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n"));
  const std::string b = write("b.csv", kHeader + std::string("1,v5e,w2,flow,100,0.5\n"));
  const Result r = run({"compare", a, b, "--format", "csv"});
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_THAT(r.out, HasSubstr("\ndisappeared,w1 / v5e / flow,"));
  EXPECT_THAT(r.out, HasSubstr("\nappeared,w2 / v5e / flow,"));
}

TEST_F(CompareCommand, BadInputExitsTwoNamingFileAndLine) {
  const std::string good = write("good.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n"));
  const std::string ragged = write("ragged.csv", kHeader + std::string("1,v5e,w1,flow,100\n"));
  const std::string other =
      write("other.csv", "schema_version,topology,workload,network,x_us,mfu\n");
  const std::string quotes =
      write("quotes.csv", kHeader + std::string("1,v5e,\"w1,flow,100,0.5\n"));
  Result r = run({"compare", good, ragged});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("ragged.csv:2: record has 5 cells, the header has 6"));
  r = run({"compare", good, other});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("other.csv:1: header differs from " + good + ":1"));
  r = run({"compare", quotes, good});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("quotes.csv:2: quoted cell is never closed"));
  r = run({"compare", good, (dir_ / "missing.csv").string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("missing.csv: cannot read"));
  EXPECT_EQ(r.out, "");
}

TEST_F(CompareCommand, BadUsageExitsTwo) {
  const std::string a = write("a.csv", kHeader);
  EXPECT_EQ(run({"compare", a}).code, kExitBadInput);
  EXPECT_EQ(run({"compare", a, a, a}).code, kExitBadInput);
  EXPECT_EQ(run({"compare", a, a, "--rel-tol", "-1"}).code, kExitBadInput);
  EXPECT_EQ(run({"compare", a, a, "--abs-tol-us", "nan"}).code, kExitBadInput);
  EXPECT_EQ(run({"compare", a, a, "--format", "yaml"}).code, kExitBadInput);
  const Result help = run({"compare", "--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_THAT(help.out, HasSubstr("--rel-tol"));
}

TEST_F(CompareCommand, OutWritesTheReportAndKeepsTheExitCode) {
  const std::string a = write("a.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n"));
  const std::string b = write("b.csv", kHeader + std::string("1,v5e,w1,flow,100,0.6\n"));
  const auto out = dir_ / "report.json";
  const Result r = run({"compare", a, b, "--format", "json", "--out", out.string()});
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_EQ(r.out, "");
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"ok\": false"));
  EXPECT_THAT(text, HasSubstr("\"column\": \"mfu\""));
}

TEST_F(CompareCommand, ComparesWhatRunWrites) {
  // Serving rows and operation rows, each against itself and against a
  // different network model (a changed key: one row out, one in).
  const std::string topo = (root() / "topologies/v5e-4x4.textproto").string();
  const std::string serving = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const std::string tour = (root() / "workloads/collectives-tour-v5e-4x4.textproto").string();
  for (const std::string& w : {serving, tour}) {
    SCOPED_TRACE(w);
    const Result flow = run({"run", "-t", topo, "-w", w, "-f", "csv"});
    const Result analytical = run({"run", "-t", topo, "-w", w, "-f", "csv", "-n", "analytical"});
    ASSERT_EQ(flow.code, kExitOk) << flow.err;
    ASSERT_EQ(analytical.code, kExitOk) << analytical.err;
    const std::string a = write("flow.csv", flow.out);
    const std::string b = write("analytical.csv", analytical.out);
    const Result same = run({"compare", a, a});
    EXPECT_EQ(same.code, kExitOk) << same.out << same.err;
    const Result changed = run({"compare", a, b});
    EXPECT_EQ(changed.code, kExitCheckFailed);
    EXPECT_THAT(changed.out, HasSubstr("disappeared"));
    EXPECT_THAT(changed.out, HasSubstr("network=analytical"));
  }
}

TEST_F(CompareCommand, RowsAreKeyedByInputsNotNames) {
  // An edited copy of the topology that keeps its name: twice the link
  // bandwidth. Its rows are other scenarios, not moved values of the same one.
  std::ifstream in(root() / "topologies/v5e-4x4.textproto");
  std::stringstream text;
  text << in.rdbuf();
  std::string t = text.str();
  const std::string field = "link_bandwidth_gbps: 50";
  ASSERT_NE(t.find(field), std::string::npos);
  for (size_t at = t.find(field); at != std::string::npos; at = t.find(field, at)) {
    t.replace(at, field.size(), "link_bandwidth_gbps: 100");
  }
  const std::string copy = write("v5e-4x4-fast.textproto", t);
  const std::string tour = (root() / "workloads/collectives-tour-v5e-4x4.textproto").string();
  // Same file name too, so only the bandwidth tells the rows apart.
  std::filesystem::create_directories(dir_ / "fast" / "topologies");
  const auto fast = dir_ / "fast" / "topologies" / "v5e-4x4.textproto";
  std::filesystem::copy_file(copy, fast);
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_ / "fast");
  const Result edited = run({"run", "-t", "topologies/v5e-4x4.textproto", "-w", tour, "-f", "csv"});
  std::filesystem::current_path(root());
  const Result original =
      run({"run", "-t", "topologies/v5e-4x4.textproto", "-w", tour, "-f", "csv"});
  std::filesystem::current_path(cwd);
  ASSERT_EQ(edited.code, kExitOk) << edited.err;
  ASSERT_EQ(original.code, kExitOk) << original.err;
  const std::string a = write("original.csv", original.out);
  const std::string b = write("edited.csv", edited.out);
  const Result r = run({"compare", a, b, "--format", "csv"});
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_THAT(r.out, Not(HasSubstr("moved,")));
  EXPECT_THAT(r.out, HasSubstr("appeared,"));
  EXPECT_THAT(r.out, HasSubstr("disappeared,"));
  EXPECT_THAT(r.out, HasSubstr("inputs.topology.dims.link_bandwidth_gbps=100;100"));
  // Both files in one: fourteen distinct rows, no "same scenario" refusal.
  const std::string both = write("both.csv", original.out + edited.out);
  EXPECT_EQ(run({"compare", both, both}).code, kExitOk);
}

TEST_F(CompareCommand, DifferentSchemaVersionsAreRefusedNamingBoth) {
  const std::string old_file = write("old.csv", kHeader + std::string("2,v5e,w1,flow,100,0.5\n"));
  const Result current = run({"run", "-f", "csv", "-n", "analytical"});
  ASSERT_EQ(current.code, kExitOk) << current.err;
  const std::string new_file = write("new.csv", current.out);
  const Result r = run({"compare", old_file, new_file});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("schema_version " + std::to_string(report::kResultSchemaVersion)));
  EXPECT_THAT(r.err, HasSubstr("schema_version 2"));
  EXPECT_THAT(r.err, HasSubstr(old_file));
}

TEST_F(CompareCommand, StatusAndReasonCompareAsValues) {
  const std::string w = (root() / "workloads/llama3-8b-decode-v5e.textproto").string();
  const std::string topo = (root() / "topologies/v5e-4x4.textproto").string();
  const Result ok = run({"run", "-t", topo, "-w", w, "-f", "csv", "-n", "analytical"});
  ASSERT_EQ(ok.code, kExitOk) << ok.err;
  // The same row with another status: a moved value, not another scenario.
  std::string oom = ok.out;
  const auto at = oom.find(",ok,,");  // status, then an empty reason
  ASSERT_NE(at, std::string::npos);
  oom.replace(at, 5, ",oom,,");
  const Result r = run({"compare", write("ok.csv", ok.out), write("oom.csv", oom), "-f", "csv"});
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_THAT(r.out, HasSubstr(",status,ok,oom,"));
}

}  // namespace
}  // namespace podsim::cli

// Issue 32: --match-by pairs rows across an intended input change (exit 1,
// the deltas listed); a repeated key or an unknown column exits 2; the
// table's lists are capped by --max-listed.
namespace podsim::cli {
namespace {

TEST_F(CompareCommand, MatchByPairsRowsAndListsTheDeltas) {
  const std::string a = write("a.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n"));
  const std::string b = write("b.csv", kHeader + std::string("1,v5e,w1,packet,150,0.5\n"));
  const Result whole = run({"compare", a, b});
  EXPECT_EQ(whole.code, kExitCheckFailed);
  EXPECT_THAT(whole.out, HasSubstr("1 scenario disappeared, 1 scenario appeared"));
  const Result paired = run({"compare", a, b, "--match-by", "topology,workload"});
  EXPECT_EQ(paired.code, kExitCheckFailed) << paired.err;
  EXPECT_THAT(paired.out, HasSubstr("FAIL: 2 values moved in 1 scenario (1 scenario matched"));
  EXPECT_THAT(paired.out, HasSubstr("matched by topology,workload"));
  EXPECT_THAT(paired.out, HasSubstr("+50%"));
  EXPECT_THAT(paired.out, HasSubstr("packet"));

  const std::string twice =
      write("twice.csv", kHeader + std::string("1,v5e,w1,flow,100,0.5\n1,v5e,w1,packet,9,1\n"));
  const Result repeated = run({"compare", twice, twice, "--match-by", "topology,workload"});
  EXPECT_EQ(repeated.code, kExitBadInput);
  EXPECT_THAT(repeated.err, HasSubstr("twice.csv:3: same --match-by key as line 2"));
  const Result unknown = run({"compare", a, b, "--match-by", "topologyy"});
  EXPECT_EQ(unknown.code, kExitBadInput);
  EXPECT_THAT(unknown.err, HasSubstr("--match-by column \"topologyy\""));
  EXPECT_EQ(run({"compare", a, b, "--match-by", "topology,,workload"}).code, kExitBadInput);
}

TEST_F(CompareCommand, MaxListedCapsTheTable) {
  std::string a_rows;
  std::string b_rows;
  for (int i = 0; i < 5; ++i) {
    a_rows += "1,v5e,a" + std::to_string(i) + ",flow,100,0.5\n";
    b_rows += "1,v5e,b" + std::to_string(i) + ",flow,100,0.5\n";
  }
  const std::string a = write("a.csv", kHeader + a_rows);
  const std::string b = write("b.csv", kHeader + b_rows);
  const Result capped = run({"compare", a, b, "--max-listed", "2"});
  EXPECT_EQ(capped.code, kExitCheckFailed);
  EXPECT_THAT(capped.out, HasSubstr("    workload=a1\n  ... and 3 more"));
  EXPECT_THAT(capped.out, Not(HasSubstr("workload=a2")));
  EXPECT_THAT(run({"compare", a, b, "--max-listed", "0"}).out, HasSubstr("workload=b4"));
  EXPECT_EQ(run({"compare", a, b, "--max-listed", "-1"}).code, kExitBadInput);
}

}  // namespace
}  // namespace podsim::cli
