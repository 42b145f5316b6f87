// `--set PATH=VALUE` applied by the loaders: every kind of field, lists and
// their elements, indexes into repeated messages, absent messages and oneof
// members; what the specs record; and that rules see the overridden value.
#include "config/overrides.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <variant>

#include "config/internal/sha256.h"
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

PodSpec pod_with(const Overrides& overrides, const podsim::Topology& t = valid_topology()) {
  return parse_topology_text(text_of(t), "pod.textproto", overrides);
}

WorkloadSpec workload_with(const Overrides& overrides,
                           const podsim::Workload& w = valid_workload()) {
  return parse_workload_text(text_of(w), "w.textproto", test_pod(), overrides);
}

// The diagnostics of loading valid_topology() with `overrides`, which must fail.
std::vector<Diagnostic> pod_errors(const Overrides& overrides,
                                   const podsim::Topology& t = valid_topology()) {
  try {
    pod_with(overrides, t);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

std::vector<Diagnostic> workload_errors_with(const Overrides& overrides,
                                             const podsim::Workload& w = valid_workload()) {
  try {
    workload_with(overrides, w);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

podsim::Topology with_failed_link() {
  podsim::Topology t = valid_topology();
  auto* link = t.add_failed_links();
  for (uint32_t c : {1u, 2u, 0u})
    link->add_coords(c);
  link->set_dim(0);
  link->set_direction(1);
  return t;
}

TEST(Overrides, DoubleOnAnIndexedDimension) {
  const PodSpec pod = pod_with({{"topology.torus.dims[1].link_bandwidth_gbps", "12.5"}});
  EXPECT_EQ(pod.torus.dims[1].link_bandwidth, sim::Bandwidth::from_gbps(12.5));
  EXPECT_EQ(pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(50));  // untouched
  EXPECT_EQ(pod_with({{"topology.torus.dims[0].hop_latency_ns", "2e3"}}).torus.dims[0].hop_latency,
            sim::Time::ns(2000));
}

// Faults can be added from the command line, in index order (issue 12
// point 5): a list grows when its next index is named (issue 32: any list,
// tests/config/override_append_test.cc).
TEST(Overrides, FaultListsGrowAtTheirNextIndex) {
  const PodSpec pod = pod_with({{"topology.stragglers[0].coords", "[2, 1, 0]"},
                                {"topology.stragglers[0].hbm_factor", "0.5"},
                                {"topology.stragglers[1].coords", "[0, 0, 1]"},
                                {"topology.stragglers[1].compute_factor", "0.25"},
                                {"topology.dead_chips[0].coords", "[3, 3, 1]"}});
  ASSERT_EQ(pod.stragglers.size(), 2U);
  EXPECT_EQ(pod.stragglers[0], (StragglerSpec{0, {2, 1, 0}, 1.0, 0.5}));
  EXPECT_EQ(pod.stragglers[1], (StragglerSpec{0, {0, 0, 1}, 0.25, 1.0}));
  EXPECT_EQ(pod.dead_chips, (std::vector<DeadChipSpec>{{0, {3, 3, 1}}}));
  // Past the next index stays out of range.
  EXPECT_THROW(pod_with({{"topology.stragglers[1].coords", "[0, 0, 0]"}}), InputError);
  EXPECT_THROW(pod_with({{"topology.torus.dims[4].size", "2"}}), InputError);
}

TEST(Overrides, UnsignedIntegers) {
  const PodSpec pod =
      pod_with({{"topology.chip.matrix_units.rows", "256"},
                {"topology.chip.peak.bf16_tflops", "0"},  // a peak must agree with the geometry
                {"topology.chip.peak.int8_tops", "0"},
                {"topology.chip.hbm_bytes", "17179869184"}});
  EXPECT_EQ(pod.chip.mxu_rows, 256u);
  EXPECT_EQ(pod.chip.mxu_columns, 64u);
  EXPECT_EQ(pod.chip.hbm_bytes, 17179869184u);  // 16 GiB: past uint32
}

TEST(Overrides, SignedInteger) {
  const PodSpec pod = pod_with({{"topology.failed_links[0].direction", "-1"}}, with_failed_link());
  ASSERT_EQ(pod.failed_links.size(), 1u);
  EXPECT_EQ(pod.failed_links[0].direction, -1);
}

TEST(Overrides, Bool) {
  EXPECT_FALSE(pod_with({{"topology.torus.dims[0].wraparound", "false"}}).torus.dims[0].wraparound);
  podsim::Topology t = valid_topology();
  t.mutable_torus()->mutable_dims(0)->set_wraparound(false);
  EXPECT_TRUE(
      pod_with({{"topology.torus.dims[0].wraparound", "true"}}, t).torus.dims[0].wraparound);
}

TEST(Overrides, StringsBareOrQuoted) {
  EXPECT_EQ(pod_with({{"topology.name", "what-if"}}).name, "what-if");
  EXPECT_EQ(pod_with({{"topology.chip.name", "\"chip \\\"B\\\"\""}}).chip.name, "chip \"B\"");
  EXPECT_EQ(pod_with({{"topology.description", "'two words'"}}).description, "two words");
}

TEST(Overrides, EnumByName) {
  const WorkloadSpec w =
      workload_with({{"workload.operations[0].collective.algorithm", "UNIDIRECTIONAL_RING"}});
  const auto& c = std::get<CollectiveSpec>(w.operations[0].op);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::kUnidirectionalRing);
}

TEST(Overrides, ListReplacesTheWholeRepeatedField) {
  const WorkloadSpec w = workload_with({{"workload.operations[0].collective.axes", "[model]"}});
  EXPECT_THAT(std::get<CollectiveSpec>(w.operations[0].op).axes, ElementsAre("model"));
  const WorkloadSpec quoted =
      workload_with({{"workload.operations[0].collective.axes", "[ \"model\" , 'data' ]"}});
  EXPECT_THAT(std::get<CollectiveSpec>(quoted.operations[0].op).axes, ElementsAre("model", "data"));
}

TEST(Overrides, ServingShardingList) {
  // tensor parallel over "model" (8 chips) and 4 replicas over "data",
  // swapped: 4-way tensor parallelism, 8 replicas. An empty list clears.
  const WorkloadSpec spec = workload_with({{"workload.sharding.tensor_axes", "[]"},
                                           {"workload.sharding.data_axes", "[model]"},
                                           {"workload.sharding.tensor_axes", "[data]"}},
                                          valid_serving_workload());
  ASSERT_TRUE(spec.serving.has_value());
  EXPECT_THAT(spec.serving->sharding.tensor_axes, ElementsAre("data"));
  EXPECT_THAT(spec.serving->sharding.data_axes, ElementsAre("model"));
}

TEST(Overrides, OneElementOfAList) {
  const PodSpec pod = pod_with({{"topology.failed_links[0].coords[1]", "3"}}, with_failed_link());
  EXPECT_THAT(pod.failed_links[0].coords, ElementsAre(1u, 3u, 0u));
}

TEST(Overrides, AbsentMessageIsCreated) {
  ASSERT_FALSE(valid_topology().has_calibration());
  const PodSpec pod = pod_with({{"topology.calibration.ici_link_efficiency", "0.9"},
                                {"topology.calibration.source", "what-if"}});
  EXPECT_DOUBLE_EQ(pod.calibration.ici_link_efficiency, 0.9);
  EXPECT_EQ(pod.calibration.source, "what-if");
}

TEST(Overrides, OneofMemberIsSelected) {
  // operations[1] is an all-gather; setting a matmul field makes it a matmul.
  const WorkloadSpec w = workload_with({{"workload.operations[1].compute.matmul.m", "128"},
                                        {"workload.operations[1].compute.matmul.k", "256"},
                                        {"workload.operations[1].compute.matmul.n", "512"}});
  const auto* op = std::get_if<ComputeOp>(&w.operations[1].op);
  ASSERT_NE(op, nullptr);
  const auto& mm = std::get<Matmul>(*op);
  EXPECT_EQ(mm.m, 128u);
  EXPECT_EQ(mm.k, 256u);
  EXPECT_EQ(mm.n, 512u);
}

TEST(Overrides, TheLaterOfTwoWins) {
  EXPECT_EQ(
      pod_with({{"topology.chip.hbm_bytes", "5"}, {"topology.chip.hbm_bytes", "7"}}).chip.hbm_bytes,
      7u);
}

TEST(Overrides, EachLoaderAppliesOnlyItsRoot) {
  const Overrides both = {{"topology.chip.hbm_bytes", "2000"},
                          {"workload.operations[0].collective.bytes", "2048"}};
  const PodSpec pod = pod_with(both);
  EXPECT_EQ(pod.chip.hbm_bytes, 2000u);
  EXPECT_THAT(pod.overrides, ElementsAre("topology.chip.hbm_bytes=2000"));
  const WorkloadSpec w = workload_with(both);
  EXPECT_EQ(std::get<CollectiveSpec>(w.operations[0].op).bytes, 2048u);
  EXPECT_THAT(w.overrides, ElementsAre("workload.operations[0].collective.bytes=2048"));
}

TEST(Overrides, BinaryInputToo) {
  const PodSpec pod = parse_topology_binary(valid_topology().SerializeAsString(), "pod.pb",
                                            {{"topology.chip.matrix_units.columns", "256"},
                                             {"topology.chip.peak.bf16_tflops", "0"},
                                             {"topology.chip.peak.int8_tops", "0"}});
  EXPECT_EQ(pod.chip.mxu_columns, 256u);
}

TEST(Overrides, EmbeddedDefaults) {
  const PodSpec pod = default_topology({{"topology.torus.dims[0].link_bandwidth_gbps", "100"}});
  EXPECT_EQ(pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(100));
  EXPECT_THAT(pod.overrides, ElementsAre("topology.torus.dims[0].link_bandwidth_gbps=100"));
  const WorkloadSpec w = default_workload(default_topology(), {{"workload.scenario.batch", "64"}});
  ASSERT_TRUE(w.serving.has_value());
  EXPECT_EQ(w.serving->scenario.batch, 64u);
  EXPECT_THAT(w.overrides, ElementsAre("workload.scenario.batch=64"));
}

TEST(Overrides, SpecsRecordTheSourceHash) {
  const std::string text = text_of(valid_topology());
  const PodSpec pod = parse_topology_text(text, "pod.textproto");
  EXPECT_EQ(pod.source_sha256, internal::sha256_hex(text));
  EXPECT_EQ(pod.source_sha256.size(), 64u);
  EXPECT_TRUE(pod.overrides.empty());
  // The hash is of the input's bytes: overrides do not change it.
  EXPECT_EQ(parse_topology_text(text, "pod.textproto", {{"topology.name", "x"}}).source_sha256,
            pod.source_sha256);
  EXPECT_EQ(default_topology().source_sha256, internal::sha256_hex(default_topology_text()));
  const PodSpec binary = parse_topology_binary(valid_topology().SerializeAsString(), "pod.pb");
  EXPECT_EQ(binary.source_sha256, internal::sha256_hex(valid_topology().SerializeAsString()));
  EXPECT_NE(binary.source_sha256, pod.source_sha256);

  const std::string wtext = text_of(valid_workload());
  EXPECT_EQ(parse_workload_text(wtext, "w.textproto", test_pod()).source_sha256,
            internal::sha256_hex(wtext));
  EXPECT_EQ(default_workload(default_topology()).source_sha256,
            internal::sha256_hex(default_workload_text()));
}

TEST(Overrides, FilesRecordTheHashOfTheirBytes) {
  const testing::TempDir dir;
  const std::string text = text_of(valid_topology());
  const PodSpec pod =
      load_topology_file(dir.write("pod.textproto", text), {{"topology.chip.ici_ports", "8"}});
  EXPECT_EQ(pod.source_sha256, internal::sha256_hex(text));
  EXPECT_THAT(pod.overrides, ElementsAre("topology.chip.ici_ports=8"));
  EXPECT_EQ(pod.chip.ici_ports, 8u);
}

// --- Rules see the overridden value, and name the override. ---

TEST(Overrides, RuleViolationNamesTheOverride) {
  const auto errors = pod_errors({{"topology.torus.dims[0].link_bandwidth_gbps", "-1"}});
  ASSERT_THAT(errors, ElementsAre(IsDiagnostic("torus.dims[0].link_bandwidth_gbps",
                                               "must be > 0, got -1 (set by --set "
                                               "topology.torus.dims[0].link_bandwidth_gbps=-1)")));
  // No line:column: the file does not hold the value.
  EXPECT_EQ(errors[0].line, 0);
  EXPECT_EQ(errors[0].file, "pod.textproto");
  EXPECT_EQ(errors[0].to_string(),
            "pod.textproto: torus.dims[0].link_bandwidth_gbps: must be > 0, got -1 (set by --set "
            "topology.torus.dims[0].link_bandwidth_gbps=-1)");
}

TEST(Overrides, RulesOnOtherFieldsKeepTheirPosition) {
  podsim::Topology t = valid_topology();
  t.mutable_chip()->set_hbm_bytes(0);
  const auto errors = pod_errors({{"topology.torus.dims[2].wraparound", "true"}}, t);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THAT(errors[0], IsDiagnostic("chip.hbm_bytes", "must be >= 1, got 0"));
  EXPECT_GT(errors[0].line, 0);
  EXPECT_THAT(
      errors[1],
      IsDiagnostic("torus.dims[2].wraparound",
                   "needs size >= 3, got size 2 (on 2 chips the wrap link would duplicate "
                   "the direct link) (set by --set topology.torus.dims[2].wraparound=true)"));
  EXPECT_EQ(errors[1].line, 0);
}

TEST(Overrides, RuleOnASiblingFieldMentionsTheOverride) {
  // The rule is on wraparound, which the file holds; the size beside it was set.
  const auto errors = pod_errors({{"topology.torus.dims[0].size", "2"}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], IsDiagnostic("torus.dims[0].wraparound",
                                      "needs size >= 3, got size 2 (on 2 chips the wrap link would "
                                      "duplicate the direct link) (with --set "
                                      "topology.torus.dims[0].size=2)"));
  EXPECT_GT(errors[0].line, 0);  // where the file writes wraparound
  // A top-level override is not a sibling of everything.
  const auto slices = pod_errors({{"topology.slices", "2"}});
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].field, "dcn");
  EXPECT_THAT(slices[0].message, ::testing::Not(HasSubstr("--set")));
}

TEST(Overrides, RuleInsideACreatedMessageNamesTheOverride) {
  const auto errors = pod_errors({{"topology.calibration.ici_link_efficiency", "0.9"}});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], IsDiagnostic("calibration.source",
                                      "(in calibration, which --set "
                                      "topology.calibration.ici_link_efficiency=0.9 created)"));
  EXPECT_EQ(errors[0].line, 0);
}

TEST(Overrides, ListElementRuleNamesTheListOverride) {
  const auto errors =
      workload_errors_with({{"workload.operations[0].collective.axes", "[data, nosuch]"}});
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "operations[0].collective.axes[1]");
  EXPECT_THAT(errors[0].message,
              HasSubstr("(set by --set workload.operations[0].collective.axes=[data, nosuch])"));
}

TEST(Overrides, ServingRuleNamesTheOverride) {
  // 16 sequences over 4 replicas; 6 does not divide.
  const auto errors =
      workload_errors_with({{"workload.scenario.batch", "6"}}, valid_serving_workload());
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "scenario.batch");
  EXPECT_THAT(errors[0].message, HasSubstr("(set by --set workload.scenario.batch=6)"));
}

}  // namespace
}  // namespace podsim::config
