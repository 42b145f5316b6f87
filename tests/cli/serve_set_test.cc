// What-ifs on fleets (issue 32 point 3), in-process: `--set` on podsim serve
// and podsim capacity, and sweeps of serve files whose every row is the
// `podsim serve --set ...` summary row of its point, the same bytes for any
// --jobs; bad paths exit 2 naming the nearest valid ones, with no output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;
namespace fs = std::filesystem;

std::string poisson() {
  return (root() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
}

// A short run of the shipped example: 10 s of arrivals instead of 60.
const std::vector<std::string> kShortServe = {"--set", "serve.duration_s=10"};

std::vector<std::string> with_args(std::vector<std::string> args,
                                   const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// A file in the temp directory, removed with the test.
class ServeSetFile {
 public:
  ServeSetFile(const std::string& name, const std::string& text)
      : path_(fs::temp_directory_path() / ("podsim_serve_set_test_" + name)) {
    std::ofstream(path_) << text;
  }
  ~ServeSetFile() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

std::vector<std::string> serve_set_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(ServeSet, OverridesTheServeFile) {
  const Result base = run(with_args({"serve", poisson(), "--format", "csv"}, kShortServe));
  ASSERT_EQ(base.code, kExitOk) << base.err;
  // --set serve.seed is --seed.
  const Result seed =
      run(with_args({"serve", poisson(), "--format", "csv", "--seed", "3"}, kShortServe));
  const Result set_seed =
      run(with_args({"serve", poisson(), "--format", "csv", "--set", "serve.seed=3"}, kShortServe));
  ASSERT_EQ(set_seed.code, kExitOk) << set_seed.err;
  // The same row but for its last column, inputs.overrides (the overrides
  // the run took, recorded).
  const auto but_overrides = [](const std::string& csv) {
    std::string out;
    for (const std::string& line : serve_set_lines(csv))
      out += line.substr(0, line.rfind(',')) + '\n';
    return out;
  };
  ASSERT_NE(seed.out.find(",inputs.overrides\n"), std::string::npos);
  EXPECT_EQ(but_overrides(set_seed.out), but_overrides(seed.out));
  EXPECT_NE(set_seed.out.find(",serve.seed=3;serve.duration_s=10\n"), std::string::npos)
      << set_seed.out;
  EXPECT_NE(set_seed.out, base.out);
  // A smaller batch limit: the peak batch of every replica is within it.
  const Result batch = run(
      with_args({"serve", poisson(), "--format", "json", "--set", "serve.replicas[0].max_batch=4"},
                kShortServe));
  ASSERT_EQ(batch.code, kExitOk) << batch.err;
  EXPECT_THAT(batch.out, HasSubstr("\"peak_batch\": 4"));
  EXPECT_THAT(batch.out, ::testing::Not(HasSubstr("\"peak_batch\": 5")));
}

TEST(ServeSet, TheAnalyticalStepsWarnOfAReplicaOutOfStep) {
  // The replica's tensor axis spans x (a line of 2) and y, made a ring of 4:
  // its collectives' shares fall out of step, which the analytical model
  // (the serve file's default for its steps) may time apart from flow.
  const std::vector<std::string> unlike = {"serve",
                                           poisson(),
                                           "-q",
                                           "--set",
                                           "replicas[0].topology.torus.dims[1].size=4",
                                           "--set",
                                           "replicas[0].topology.torus.dims[1].wraparound=true"};
  const Result analytical = run(unlike);
  ASSERT_EQ(analytical.code, kExitOk) << analytical.err;
  EXPECT_THAT(analytical.err,
              ::testing::HasSubstr("the analytical model may time the step's all-gather over "
                                   "[model]; the step's all-reduce over [model] (replica "
                                   "'v5e-2x2') apart from flow"));
  std::vector<std::string> flow = unlike;
  flow.insert(flow.end(), {"--set", "serve.network=\"flow\""});
  const Result on_flow = run(flow);
  ASSERT_EQ(on_flow.code, kExitOk) << on_flow.err;
  EXPECT_THAT(on_flow.err, ::testing::Not(::testing::HasSubstr("analytical model may")));
  const Result shipped = run(with_args({"serve", poisson(), "-q"}, kShortServe));
  ASSERT_EQ(shipped.code, kExitOk) << shipped.err;
  EXPECT_THAT(shipped.err, ::testing::Not(::testing::HasSubstr("analytical model may")));
}

TEST(ServeSet, BadPathsExit2WithTheNearestValidOnes) {
  const Result r = run({"serve", poisson(), "--set", "serve.replicas[0].max_bach=4"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--set: serve.replicas[0].max_bach: unknown field \"max_bach\""));
  EXPECT_THAT(r.err, HasSubstr("nearest valid paths: serve.replicas[0].max_batch"));
  EXPECT_TRUE(r.out.empty());
  const Result root_missing = run({"serve", poisson(), "--set", "slo.ttft_ms=5"});
  EXPECT_EQ(root_missing.code, kExitBadInput);
  EXPECT_THAT(root_missing.err, HasSubstr("the path must start with \"serve.\""));
  const Result rule =
      run({"serve", poisson(), "--set", "topology.torus.dims[0].link_bandwidth_gbps=0"});
  EXPECT_EQ(rule.code, kExitBadInput) << rule.err;
  EXPECT_THAT(rule.err, HasSubstr("(set by --set topology.torus.dims[0].link_bandwidth_gbps=0)"));
  const Result capacity = run({"capacity", poisson(), "--set", "serve.slo.ttft=5"});
  EXPECT_EQ(capacity.code, kExitBadInput);
  EXPECT_THAT(capacity.err, HasSubstr("nearest valid paths: serve.slo.ttft_ms"));
}

// capacity takes its objectives from the overridden file.
TEST(ServeSet, CapacityOfTheOverriddenFile) {
  const Result r =
      run({"capacity", poisson(), "--set", "serve.duration_s=5", "--set", "serve.slo.ttft_ms=2000",
           "--set", "serve.slo.tpot_ms=0", "--tolerance", "0.2"});
  EXPECT_TRUE(r.code == kExitOk || r.code == kExitCheckFailed) << r.err;
  EXPECT_THAT(r.out, HasSubstr("p99 TTFT <= 2000 ms, p99 TPOT <= 0 ms"));
}

std::string serve_sweep(const std::string& body) {
  return "serve: \"" + poisson() + "\"\nset: \"serve.duration_s=10\"\n" + body;
}

const std::string kServeGrid = R"(
  parameters { path: "serve.arrivals.poisson.rate_per_s" values: ["2", "8"] }
  parameters { path: "serve.replicas[0].max_batch" values: ["8", "64"] }
)";

// One row per point, in grid order, each the serve summary row of
// `podsim serve --set` for that point, then the point's overrides.
TEST(ServeSweep, EachRowIsPodsimServeOfItsPoint) {
  const ServeSetFile sweep("grid.textproto", serve_sweep(kServeGrid));
  const Result r = run({"sweep", sweep.path(), "--quiet"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::vector<std::string> rows = serve_set_lines(r.out);
  ASSERT_EQ(rows.size(), 5U) << r.out;
  const std::vector<std::pair<std::string, std::string>> points = {
      {"2", "8"}, {"2", "64"}, {"8", "8"}, {"8", "64"}};
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string rate = "serve.arrivals.poisson.rate_per_s=" + points[i].first;
    const std::string batch = "serve.replicas[0].max_batch=" + points[i].second;
    const Result one = run({"serve", poisson(), "--format", "csv", "--set", "serve.duration_s=10",
                            "--set", rate, "--set", batch});
    ASSERT_EQ(one.code, kExitOk) << one.err;
    const std::vector<std::string> serve_rows = serve_set_lines(one.out);
    ASSERT_EQ(serve_rows.size(), 2U);
    EXPECT_EQ(rows[0], serve_rows[0] + ",overrides");
    EXPECT_EQ(rows[i + 1], serve_rows[1] + ",serve.duration_s=10;" + rate + ";" + batch);
  }
}

TEST(ServeSweep, TheSameBytesForAnyJobs) {
  const ServeSetFile sweep("jobs.textproto", serve_sweep(kServeGrid));
  const Result one = run({"sweep", sweep.path(), "--quiet"});
  const Result three = run({"sweep", sweep.path(), "--quiet", "--jobs", "3"});
  ASSERT_EQ(one.code, kExitOk) << one.err;
  ASSERT_EQ(three.code, kExitOk) << three.err;
  EXPECT_EQ(one.out, three.out);
}

TEST(ServeSweep, ZipAndTheReplicasInputs) {
  const ServeSetFile sweep("zip.textproto", serve_sweep(R"(
    combine: ZIP
    parameters { path: "topology.torus.dims[0].link_bandwidth_gbps" values: ["25", "100"] }
    parameters { path: "serve.slo.ttft_ms" values: ["300", "600"] }
  )"));
  const Result r = run({"sweep", sweep.path(), "--quiet", "--jobs", "2"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::vector<std::string> rows = serve_set_lines(r.out);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_THAT(rows[1], HasSubstr(",300,"));
  EXPECT_THAT(rows[1], ::testing::EndsWith(
                           "topology.torus.dims[0].link_bandwidth_gbps=25;serve.slo.ttft_ms=300"));
  EXPECT_THAT(rows[2], ::testing::EndsWith(
                           "topology.torus.dims[0].link_bandwidth_gbps=100;serve.slo.ttft_ms=600"));
}

TEST(ServeSweep, BadPathsExit2BeforeAnyRunAndWriteNothing) {
  const fs::path out = fs::temp_directory_path() / "podsim_serve_set_test_out.csv";
  fs::remove(out);
  const ServeSetFile sweep("bad.textproto", serve_sweep(R"(
    parameters { path: "serve.replicas[0].max_bach" values: ["8", "64"] }
  )"));
  const Result r = run({"sweep", sweep.path(), "--quiet", "--out", out.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("nearest valid paths: serve.replicas[0].max_batch"));
  EXPECT_THAT(r.err, HasSubstr("(sweep point 0: serve.replicas[0].max_bach=8)"));
  EXPECT_FALSE(fs::exists(out));
  // A value that breaks a rule at one point: named with its point.
  const ServeSetFile rule("rule.textproto", serve_sweep(R"(
    parameters { path: "serve.replicas[0].max_batch" values: ["8", "0"] }
  )"));
  const Result at_point = run({"sweep", rule.path(), "--quiet"});
  EXPECT_EQ(at_point.code, kExitBadInput);
  EXPECT_THAT(at_point.err, HasSubstr("(sweep point 1: serve.replicas[0].max_batch=0)"));
  EXPECT_TRUE(at_point.out.empty());
  // A path that is no serve path, and a serve path without a serve file.
  const ServeSetFile root_missing("root.textproto", serve_sweep(R"(
    parameters { path: "network" values: ["flow"] }
  )"));
  const Result no_root = run({"sweep", root_missing.path()});
  EXPECT_EQ(no_root.code, kExitBadInput);
  EXPECT_THAT(no_root.err, HasSubstr("a sweep of a serve file varies --set paths"));
  const ServeSetFile no_serve("noserve.textproto", R"(
    parameters { path: "serve.slo.ttft_ms" values: ["300"] }
  )");
  const Result needs_serve = run({"sweep", no_serve.path()});
  EXPECT_EQ(needs_serve.code, kExitBadInput);
  EXPECT_THAT(needs_serve.err, HasSubstr("serve paths need the sweep's serve file"));
}

}  // namespace
}  // namespace podsim::cli
