// `--set` that cannot be applied: each is an InputError naming the override,
// with the nearest valid paths where the path is wrong.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/overrides.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::test_pod;
using testing::valid_serving_workload;
using testing::valid_topology;
using testing::valid_workload;

std::string text_of(const google::protobuf::Message& m) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(m, &text));
  return text;
}

std::vector<Diagnostic> pod_errors(const Overrides& overrides) {
  try {
    parse_topology_text(text_of(valid_topology()), "pod.textproto", overrides);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

std::vector<Diagnostic> workload_errors(const Overrides& overrides,
                                        const podsim::Workload& w = valid_serving_workload()) {
  try {
    parse_workload_text(text_of(w), "w.textproto", test_pod(), overrides);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// The one diagnostic of setting `path` to `value` on valid_topology().
Diagnostic pod_error(const std::string& path, const std::string& value) {
  const auto errors = pod_errors({{path, value}});
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? Diagnostic{} : errors[0];
}

auto IsSetError(const std::string& path, const std::string& message_part) {
  return ::testing::AllOf(::testing::Field("file", &Diagnostic::file, "--set"),
                          IsDiagnostic(path, message_part));
}

TEST(OverrideErrors, UnknownFieldSuggestsTheNearestPaths) {
  const Diagnostic d = pod_error("topology.chip.matrix_units.row", "256");
  EXPECT_THAT(d, IsSetError("topology.chip.matrix_units.row",
                            "unknown field \"row\": podsim.MatrixUnits has count, rows, columns, "
                            "clock_ghz, int8_macs_per_cycle, fp8_macs_per_cycle, "
                            "weight_load_bytes_per_cycle; nearest valid paths: "
                            "topology.chip.matrix_units.rows, "));
  EXPECT_EQ(d.to_string().rfind("--set: topology.chip.matrix_units.row: unknown field", 0), 0u);
}

TEST(OverrideErrors, UnknownWorkloadField) {
  EXPECT_THAT(workload_errors({{"workload.scenario.batchsize", "64"}}),
              ElementsAre(IsSetError("workload.scenario.batchsize",
                                     "nearest valid paths: workload.scenario.batch, ")));
  EXPECT_THAT(workload_errors({{"workload.sharding.tensor_axis", "[model]"}}),
              ElementsAre(IsSetError("workload.sharding.tensor_axis",
                                     "nearest valid paths: workload.sharding.tensor_axes, ")));
}

TEST(OverrideErrors, SuggestionsIncludeIndexesTheInputHas) {
  // dims has 3 elements: the suggestions index them.
  const Diagnostic d = pod_error("topology.torus.dim[1].size", "8");
  EXPECT_THAT(d.message, HasSubstr("nearest valid paths: topology.torus.dims[1].size, "
                                   "topology.torus.dims[0].size, topology.torus.dims[2].size"));
}

TEST(OverrideErrors, IndexPastTheEndNamesTheSize) {
  EXPECT_THAT(pod_error("topology.torus.dims[4].size", "4"),
              IsSetError("topology.torus.dims[4].size",
                         "index 4 is out of range: topology.torus.dims has 3 elements in "
                         "pod.textproto (index 3 appends one); nearest valid paths: "
                         "topology.torus.dims[0].size, "));
  // An empty list: index 0 appends, index 1 is past it.
  EXPECT_THAT(pod_error("topology.torus.twists[1].offset", "1"),
              IsSetError("topology.torus.twists[1].offset",
                         "topology.torus.twists has 0 elements in pod.textproto"));
}

TEST(OverrideErrors, IndexPastTheEndOfAScalarList) {
  const auto errors = workload_errors({{"workload.sharding.tensor_axes[2]", "data"}});
  EXPECT_THAT(errors, ElementsAre(IsSetError("workload.sharding.tensor_axes[2]",
                                             "workload.sharding.tensor_axes has 1 element in")));
}

TEST(OverrideErrors, ShapeOfThePath) {
  EXPECT_THAT(pod_error("topology.chip", "5"),
              IsSetError("topology.chip",
                         "topology.chip is a message (podsim.Chip): name one of "
                         "its fields"));
  EXPECT_THAT(pod_error("topology.torus.dims.size", "5"),
              IsSetError("topology.torus.dims.size",
                         "topology.torus.dims is a list of podsim.Dimension: name an element, as "
                         "in topology.torus.dims[0].name"));
  EXPECT_THAT(pod_error("topology.chip[0].name", "x"),
              IsSetError("topology.chip[0].name", "topology.chip is not a list: no [0]"));
  EXPECT_THAT(pod_error("topology.name.first", "x"),
              IsSetError("topology.name.first",
                         "topology.name is a string, not a message: nothing is under it"));
  EXPECT_THAT(pod_error("topology.torus.dims[x].size", "5"),
              IsSetError("topology.torus.dims[x].size", "not a field path: expected an index"));
  EXPECT_THAT(pod_error("topology.torus..dims", "5"),
              IsSetError("topology.torus..dims", "not a field path: unexpected '.'"));
  // Issue 27: a non-ASCII path printed one byte of a two-byte character,
  // which is not UTF-8; the whole character, counted as one, is named now.
  EXPECT_THAT(pod_error("topology.ch\xc3\xafp.name", "x"),
              IsSetError("topology.ch\xc3\xafp.name",
                         "not a field path: unexpected '\xc3\xaf' at character 3"));
  EXPECT_THAT(
      pod_error("topology.ch\xffp.name", "x"),
      IsSetError("topology.ch\xffp.name", "not a field path: unexpected '\\xff' at character 3"));
}

TEST(OverrideErrors, WrongType) {
  EXPECT_THAT(workload_errors({{"workload.scenario.phase", "fast"}}),
              ElementsAre(IsSetError("workload.scenario.phase",
                                     "\"fast\" is not a podsim.Phase value: one of "
                                     "PHASE_UNSPECIFIED, PREFILL, DECODE")));
  EXPECT_THAT(workload_errors({{"workload.scenario.phase", "1"}}),
              ElementsAre(IsSetError("workload.scenario.phase",
                                     "\"1\" is not a podsim.Phase value (enum values are written "
                                     "by name)")));
  EXPECT_THAT(pod_error("topology.torus.dims[0].wraparound", "maybe"),
              IsSetError("topology.torus.dims[0].wraparound",
                         "\"maybe\" is not a bool: write true or false"));
  EXPECT_THAT(
      pod_error("topology.chip.matrix_units.rows", "1.5"),
      IsSetError("topology.chip.matrix_units.rows", "\"1.5\" is not a whole number (uint32)"));
  EXPECT_THAT(pod_error("topology.chip.hbm_bandwidth_gbps", "fast"),
              IsSetError("topology.chip.hbm_bandwidth_gbps", "\"fast\" is not a number (double)"));
  EXPECT_THAT(pod_error("topology.chip.hbm_bandwidth_gbps", ""),
              IsSetError("topology.chip.hbm_bandwidth_gbps", "\"\" is not a number (double)"));
  EXPECT_THAT(pod_error("topology.chip.name", "\"unterminated"),
              IsSetError("topology.chip.name", "unterminated quoted string"));
}

TEST(OverrideErrors, OutOfRange) {
  EXPECT_THAT(pod_error("topology.chip.hbm_bytes", "-5"),
              IsSetError("topology.chip.hbm_bytes",
                         "-5 is out of range for uint64 (0 to 18446744073709551615)"));
  EXPECT_THAT(pod_error("topology.chip.matrix_units.rows", "1099511627776"),  // 2^40
              IsSetError("topology.chip.matrix_units.rows",
                         "1099511627776 is out of range for uint32 (0 to 4294967295)"));
  EXPECT_THAT(pod_error("topology.chip.hbm_bytes", "18446744073709551616"),  // 2^64
              IsSetError("topology.chip.hbm_bytes", "is out of range for uint64"));
  EXPECT_THAT(pod_error("topology.chip.hbm_bandwidth_gbps", "1e400"),
              IsSetError("topology.chip.hbm_bandwidth_gbps", "1e400 is out of range for double"));
  EXPECT_THAT(workload_errors({{"workload.operations[0].collective.shift", "3000000000"}},
                              valid_workload()),
              ElementsAre(IsSetError("workload.operations[0].collective.shift",
                                     "3000000000 is out of range for int32 (-2147483648 to "
                                     "2147483647)")));
}

TEST(OverrideErrors, ListsAndScalarsAreNotMixed) {
  EXPECT_THAT(workload_errors({{"workload.sharding.tensor_axes", "model"}}),
              ElementsAre(IsSetError("workload.sharding.tensor_axes",
                                     "workload.sharding.tensor_axes is a list of string: write "
                                     "workload.sharding.tensor_axes=[a, b, ...] to replace it, or "
                                     "workload.sharding.tensor_axes[i]=v to set one element")));
  EXPECT_THAT(pod_error("topology.name", "[a, b]"),
              IsSetError("topology.name", "is a single string, not a list"));
  EXPECT_THAT(workload_errors({{"workload.sharding.tensor_axes", "[model,,data]"}}),
              ElementsAre(IsSetError("workload.sharding.tensor_axes", "element 1 of")));
  EXPECT_THAT(pod_errors({{"topology.failed_links", "[1]"}}),
              ElementsAre(IsSetError("topology.failed_links", "is a list of podsim.FailedLink")));
}

TEST(OverrideErrors, ListElementOfTheWrongType) {
  podsim::Topology t = valid_topology();
  auto* link = t.add_failed_links();
  link->add_coords(0);
  try {
    parse_topology_text(text_of(t), "pod.textproto",
                        {{"topology.failed_links[0].coords", "[1, -2]"}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsSetError("topology.failed_links[0].coords",
                                       "element 1: -2 is out of range for uint32")));
  }
}

TEST(OverrideErrors, EveryBadOverrideIsReportedWithTheFilesProblems) {
  const std::string text = text_of(valid_topology()) + "\nchip_typo: 1\n";
  try {
    parse_topology_text(text, "pod.textproto",
                        {{"topology.chip.hbm_bytes", "x"}, {"topology.chip.rows", "1"}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsDiagnostic("chip_typo", "unknown field"),
                            IsSetError("topology.chip.hbm_bytes", "not a whole number"),
                            IsSetError("topology.chip.rows", "unknown field \"rows\"")));
  }
}

TEST(OverrideErrors, MalformedSetArgument) {
  EXPECT_EQ(parse_override("topology.chip.hbm_bytes=5"),
            (Override{"topology.chip.hbm_bytes", "5"}));
  EXPECT_EQ(parse_override(" workload.name = a=b "), (Override{"workload.name", "a=b"}));
  EXPECT_EQ(parse_override("workload.name="), (Override{"workload.name", ""}));
  EXPECT_EQ(to_string(Override{"workload.scenario.batch", "64"}), "workload.scenario.batch=64");
  try {
    parse_override("workload.scenario.batch");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(AllOf(::testing::Field("file", &Diagnostic::file, "--set"),
                                  IsDiagnostic("", "expected PATH=VALUE"))));
  }
  EXPECT_THROW(parse_override("=5"), InputError);
  EXPECT_THROW(parse_override("  =5"), InputError);
}

TEST(OverrideErrors, PathsMustStartWithARoot) {
  EXPECT_NO_THROW(check_override_roots({{"topology.name", "a"}, {"workload.name", "b"}}));
  try {
    check_override_roots({{"topology.name", "a"},
                          {"chip.hbm_bytes", "1"},
                          {"workload.", "2"},
                          {"topologyx.name", "3"}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsSetError("chip.hbm_bytes",
                                       "the path must start with \"topology.\" or \"workload.\""),
                            IsSetError("workload.", "must start with"),
                            IsSetError("topologyx.name", "must start with")));
  }
}

}  // namespace
}  // namespace podsim::config

namespace podsim::config {
namespace {

// Several --set arguments (the CLI's, the Python module's set=): every bad
// one reported at once, the malformed and the unrooted alike, in order.
TEST(OverrideErrors, ParseOverridesReportsEveryBadOneAtOnce) {
  EXPECT_THAT(parse_overrides({"workload.scenario.batch=64", " topology.x = 1 "}),
              ElementsAre(Override{"workload.scenario.batch", "64"}, Override{"topology.x", "1"}));
  EXPECT_TRUE(parse_overrides({}).empty());
  try {
    parse_overrides({"no-equals-sign", "workload.scenario.batch=8", "scenario.batch=8"});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].file, "--set");
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("expected PATH=VALUE"));
    EXPECT_EQ(e.diagnostics()[1].file, "--set");
    EXPECT_THAT(e.diagnostics()[1].message, HasSubstr("topology.\" or \"workload."));
  }
}

}  // namespace
}  // namespace podsim::config
