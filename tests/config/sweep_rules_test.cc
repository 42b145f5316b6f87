// The sweep file's rules (docs/sweeps.md): parameters, ranges, combination,
// run options, base files, limits; and how ranges expand into values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/sweep_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::source_dir;

SweepSpec parse(const std::string& text) {
  return parse_sweep_text(text, "s.textproto", source_dir());
}

std::vector<Diagnostic> errors(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "loaded: " << text;
  return {};
}

TEST(SweepRulesTest, ValuesAndRangesExpandInOrder) {
  const SweepSpec s = parse(R"(
    name: "s"
    workload: "workloads/llama3-70b-decode-v5e.textproto"
    parameters { path: "workload.scenario.batch" geometric { start: 1 stop: 512 factor: 2 } }
    parameters { path: "topology.torus.dims[0].link_bandwidth_gbps" linear { start: 0.1 stop: 0.5 step: 0.1 } }
    parameters { path: "network" values: ["analytical", "flow"] }
    set: "workload.sharding.data_axes=[]"
  )");
  ASSERT_EQ(s.parameters.size(), 3U);
  EXPECT_THAT(s.parameters[0].values,
              ElementsAre("1", "2", "4", "8", "16", "32", "64", "128", "256", "512"));
  EXPECT_THAT(s.parameters[1].values, ElementsAre("0.1", "0.2", "0.3", "0.4", "0.5"));
  EXPECT_THAT(s.parameters[2].values, ElementsAre("analytical", "flow"));
  EXPECT_EQ(s.points, 10U * 5U * 2U);
  EXPECT_EQ(s.combine, SweepCombine::kGrid);
  EXPECT_EQ(s.network, "flow");
  EXPECT_EQ(s.compute, "roofline");
  EXPECT_FALSE(s.topology_file.has_value());
  EXPECT_EQ(
      *s.workload_file,
      (source_dir() / "workloads/llama3-70b-decode-v5e.textproto").lexically_normal().string());
  EXPECT_THAT(s.set, ElementsAre("workload.sharding.data_axes=[]"));
}

TEST(SweepRulesTest, ZipNeedsEqualLengthsAndCountsOnePointPerValue) {
  const SweepSpec s = parse(R"(
    combine: ZIP
    parameters { path: "workload.scenario.batch" values: ["1", "2", "3"] }
    parameters { path: "compute" values: ["roofline", "systolic", "roofline"] }
  )");
  EXPECT_EQ(s.points, 3U);
  EXPECT_THAT(errors(R"(
    combine: ZIP
    parameters { path: "workload.scenario.batch" values: ["1", "2", "3"] }
    parameters { path: "compute" values: ["roofline"] }
  )"),
              ElementsAre(IsDiagnostic("parameters[1]", "equal lengths")));
}

TEST(SweepRulesTest, EachParameterNeedsAPathAndExactlyOneForm) {
  EXPECT_THAT(errors(R"(parameters { values: ["1"] })"),
              ElementsAre(IsDiagnostic("parameters[0].path", "must name")));
  EXPECT_THAT(errors(R"(parameters { path: "scenario.batch" values: ["1"] })"),
              ElementsAre(IsDiagnostic("parameters[0].path", "topology. or workload.")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch" })"),
              ElementsAre(IsDiagnostic("parameters[0].values", "exactly one")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch" values: "1"
                                     linear { start: 1 stop: 2 step: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].values", "2 given")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch" values: "1" }
                        parameters { path: "workload.scenario.batch" values: "2" })"),
              ElementsAre(IsDiagnostic("parameters[1].path", "varied twice")));
  EXPECT_THAT(errors(""), ElementsAre(IsDiagnostic("parameters", "at least one")));
}

TEST(SweepRulesTest, RangesMustBeFiniteAndGrow) {
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     linear { start: 1 stop: 8 step: 0 } })"),
              ElementsAre(IsDiagnostic("parameters[0].linear.step", "must be > 0")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     linear { start: 8 stop: 1 step: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].linear.stop", "must be >= start")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     geometric { start: 1 stop: 8 factor: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].geometric.factor", "> 1")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     geometric { start: 0 stop: 8 factor: 2 } })"),
              ElementsAre(IsDiagnostic("parameters[0].geometric.start", "must be > 0")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     linear { start: 0 stop: inf step: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].linear.stop", "finite")));
  EXPECT_THAT(errors(R"(parameters { path: "network" linear { start: 1 stop: 2 step: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].linear", "takes values")));
}

TEST(SweepRulesTest, SizesAreBounded) {
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch"
                                     linear { start: 0 stop: 1e12 step: 1 } })"),
              ElementsAre(IsDiagnostic("parameters[0].linear", "at most 100000")));
  std::string grid;
  for (int i = 0; i < 3; ++i) {
    grid += "parameters { path: \"workload.p" + std::to_string(i) +
            "\" linear { start: 1 stop: 1000 step: 1 } }\n";
  }
  EXPECT_THAT(errors(grid), ElementsAre(IsDiagnostic("parameters", "more than 10000000 points")));
}

TEST(SweepRulesTest, RunOptionsAndSetAreChecked) {
  EXPECT_THAT(errors(R"(network: "fast" parameters { path: "compute" values: "roofline" })"),
              ElementsAre(IsDiagnostic("network", "analytical, flow, packet")));
  EXPECT_THAT(errors(R"(compute: "table" parameters { path: "network" values: "flow" })"),
              ElementsAre(IsDiagnostic("compute", "roofline, systolic")));
  EXPECT_THAT(errors(R"(parameters { path: "network" values: ["flow", "fluid"] })"),
              ElementsAre(IsDiagnostic("parameters[0].values[1]", "got \"fluid\"")));
  EXPECT_THAT(
      errors(R"(set: "workload.scenario.batch" parameters { path: "network" values: "flow" })"),
      ElementsAre(IsDiagnostic("set[0]", "PATH=VALUE")));
  EXPECT_THAT(errors(R"(set: "scenario.batch=2" parameters { path: "network" values: "flow" })"),
              ElementsAre(IsDiagnostic("set[0]", "topology. or workload.")));
}

TEST(SweepRulesTest, GenerationOptionsAreCheckedAndKept) {
  const SweepSpec plain = parse(R"(parameters { path: "network" values: "flow" })");
  EXPECT_FALSE(plain.every_step);
  EXPECT_DOUBLE_EQ(plain.step_tolerance, 1e-3);  // as podsim run's default
  const SweepSpec s = parse(
      R"(every_step: true step_tolerance: 0.01 parameters { path: "network" values: "flow" })");
  EXPECT_TRUE(s.every_step);
  EXPECT_DOUBLE_EQ(s.step_tolerance, 0.01);
  EXPECT_THAT(errors(R"(step_tolerance: 1 parameters { path: "network" values: "flow" })"),
              ElementsAre(IsDiagnostic("step_tolerance", "in [0, 1), such as 0.001, got 1")));
  EXPECT_THAT(errors(R"(step_tolerance: -0.5 parameters { path: "network" values: "flow" })"),
              ElementsAre(IsDiagnostic("step_tolerance", "got -0.5")));
}

TEST(SweepRulesTest, BaseFilesMustExistRelativeToTheSweep) {
  EXPECT_THAT(
      errors(R"(topology: "no/such.textproto" parameters { path: "network" values: "flow" })"),
      ElementsAre(IsDiagnostic("topology", "no such file")));
  testing::TempDir dir;
  dir.write("t.textproto", "name: \"x\"");
  const auto path = dir.write("s.textproto", R"(topology: "t.textproto"
      parameters { path: "network" values: "flow" })");
  const SweepSpec s = load_sweep_file(path);
  EXPECT_EQ(*s.topology_file, (dir.path() / "t.textproto").string());
  EXPECT_EQ(s.source_file, path.string());
}

TEST(SweepRulesTest, FileParametersAndAlsoPaths) {
  const SweepSpec s = parse(R"(
    parameters { path: "topology" values: ["topologies/v5e-4x4.textproto", "topologies/v5e-2x2.textproto"] }
    parameters { path: "topology.torus.dims[0].link_bandwidth_gbps"
                 also: "topology.torus.dims[1].link_bandwidth_gbps" values: ["25", "50"] }
  )");
  EXPECT_EQ(s.parameters[0].values[0],
            (source_dir() / "topologies/v5e-4x4.textproto").lexically_normal().string());
  EXPECT_THAT(s.parameters[1].also, ElementsAre("topology.torus.dims[1].link_bandwidth_gbps"));
  EXPECT_THAT(errors(R"(parameters { path: "workload" values: "nope.textproto" })"),
              ElementsAre(IsDiagnostic("parameters[0].values[0]", "no such file")));
  EXPECT_THAT(
      errors(R"(parameters { path: "network" also: "topology.chip.hbm_bytes" values: "flow" })"),
      ElementsAre(IsDiagnostic("parameters[0].also[0]", "only a --set path")));
  EXPECT_THAT(errors(R"(parameters { path: "workload.scenario.batch" also: "batch" values: "1" })"),
              ElementsAre(IsDiagnostic("parameters[0].also[0]", "must be a --set path")));
}

TEST(SweepRulesTest, TextErrorsCarryLineAndColumn) {
  const auto d = errors("parameters {\n  path: \"network\"\n  values: \"fluid\"\n}\n");
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].file, "s.textproto");
  EXPECT_EQ(d[0].line, 3);
}

}  // namespace
}  // namespace podsim::config

namespace podsim::config {
namespace {

// A sweep of a serve file (docs/sweeps.md, "Sweeps of serve files"): its
// paths are serve paths; the run's own inputs and options are refused.
TEST(SweepRulesTest, ASweepOfAServeFile) {
  const SweepSpec s = parse(R"(
    serve: "workloads/serve/llama3-8b-poisson.serve.textproto"
    set: "serve.duration_s=5"
    parameters { path: "serve.replicas[0].max_batch" values: ["8", "16"] }
    parameters { path: "replicas[0].topology.torus.dims[0].link_bandwidth_gbps" values: ["25"]
                 also: "topology.torus.dims[1].link_bandwidth_gbps" }
  )");
  EXPECT_EQ(*s.serve_file, (source_dir() / "workloads/serve/llama3-8b-poisson.serve.textproto")
                               .lexically_normal()
                               .string());
  EXPECT_EQ(s.points, 2U);
  EXPECT_THAT(errors(R"(
    serve: "workloads/serve/llama3-8b-poisson.serve.textproto"
    network: "flow"
    allow_oom: true
    set: "workload.scenario.batch=8"
    set: "scenario.batch=8"
    parameters { path: "compute" values: ["systolic"] }
  )"),
              ElementsAre(IsDiagnostic("network", "not with serve: "),
                          IsDiagnostic("allow_oom", "not with serve: "),
                          IsDiagnostic("set[1]", "the path must start with serve., topology."),
                          IsDiagnostic("parameters[0].path",
                                       "a sweep of a serve file varies --set paths")));
  EXPECT_THAT(errors(R"(serve: "no/such.serve.textproto"
                        parameters { path: "serve.seed" values: ["1"] })"),
              ElementsAre(IsDiagnostic("serve", "")));
  EXPECT_THAT(
      errors(R"(parameters { path: "serve.seed" values: ["1"] })"),
      ElementsAre(IsDiagnostic("parameters[0].path", "(serve paths need the sweep's serve file)")));
}

}  // namespace
}  // namespace podsim::config
