// `--set` appends an element to a list when it names the list at its length
// (issue 32 point 3): a torus dimension, a mesh axis, an element of a list
// of scalars. The new element starts with every field at its default, and
// further overrides of the same index set its fields, in command-line order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/overrides.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::source_dir;

std::filesystem::path slice_2x2() {
  return source_dir() / "topologies/v5e-2x2.textproto";
}

std::filesystem::path llama_2x2() {
  return source_dir() / "workloads/serve/llama3-8b-v5e-2x2.textproto";
}

// A third torus dimension of 2 chips on the 2D v5e 2x2 slice: its fields
// set one override at a time, and the chip's ports to match.
Overrides third_dimension() {
  return {{"topology.torus.dims[2].name", "z"},
          {"topology.torus.dims[2].size", "2"},
          {"topology.torus.dims[2].link_bandwidth_gbps", "25"},
          {"topology.torus.dims[2].hop_latency_ns", "500"},
          {"topology.chip.ici_ports", "6"}};
}

std::vector<Diagnostic> pod_errors(const Overrides& overrides) {
  try {
    load_topology_file(slice_2x2(), overrides);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

TEST(OverrideAppend, ATorusDimension) {
  const PodSpec base = load_topology_file(slice_2x2());
  const PodSpec pod = load_topology_file(slice_2x2(), third_dimension());
  ASSERT_EQ(pod.torus.dims.size(), 3U);
  EXPECT_EQ(pod.torus.chip_count(), 2 * base.torus.chip_count());
  const DimensionSpec& z = pod.torus.dims[2];
  EXPECT_EQ(z.name, "z");
  EXPECT_EQ(z.size, 2U);
  EXPECT_FALSE(z.wraparound);  // never set: the default, as `dims { }` in a file
  EXPECT_EQ(z.link_bandwidth, sim::Bandwidth::from_gbps(25));
  EXPECT_EQ(z.hop_latency, sim::Time::ns(500));
  EXPECT_EQ(pod.torus.dims[0], base.torus.dims[0]);  // the others untouched
  EXPECT_EQ(pod.torus.dims[1], base.torus.dims[1]);
  ASSERT_EQ(pod.overrides.size(), 5U);
  EXPECT_EQ(pod.overrides[0], "topology.torus.dims[2].name=z");
}

// The same as a file that writes the dimension: overrides that append are
// no approximation of the file.
TEST(OverrideAppend, EqualsTheFileThatWritesIt) {
  std::string text = read_file_to_string(slice_2x2());
  const std::string y = "link_bandwidth_gbps: 50 hop_latency_ns: 1000 }\n";
  const size_t at = text.rfind(y);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + y.size(),
              "  dims { name: \"z\" size: 2 link_bandwidth_gbps: 25 hop_latency_ns: 500 }\n");
  text.replace(text.find("ici_ports: 4"), 12, "ici_ports: 6");
  const PodSpec written = parse_topology_text(text, "written.textproto");
  const PodSpec appended = load_topology_file(slice_2x2(), third_dimension());
  EXPECT_EQ(appended.torus, written.torus);
  EXPECT_EQ(appended.chip.ici_ports, written.chip.ici_ports);
}

// Later overrides of the appended index change it in order; the later of
// two on one field wins, as everywhere.
TEST(OverrideAppend, OverridesOfTheNewElementComposeInOrder) {
  Overrides o = third_dimension();
  o.push_back({"topology.torus.dims[2].size", "4"});
  o.push_back({"topology.torus.dims[2].wraparound", "true"});
  const PodSpec pod = load_topology_file(slice_2x2(), o);
  EXPECT_EQ(pod.torus.dims[2].size, 4U);
  EXPECT_TRUE(pod.torus.dims[2].wraparound);
  // Two dimensions appended one after the other.
  o.push_back({"topology.torus.dims[3].name", "w"});
  o.push_back({"topology.torus.dims[3].size", "2"});
  o.push_back({"topology.torus.dims[3].link_bandwidth_gbps", "10"});
  o.push_back({"topology.chip.ici_ports", "8"});
  EXPECT_EQ(load_topology_file(slice_2x2(), o).torus.dims.size(), 4U);
}

// A field the overrides leave at its default breaks its rule, which names
// the override that brought the element into being.
TEST(OverrideAppend, ARuleOnTheNewElementNamesTheOverrideThatAddedIt) {
  EXPECT_THAT(pod_errors({{"topology.torus.dims[2].name", "z"},
                          {"topology.torus.dims[2].size", "2"},
                          {"topology.chip.ici_ports", "6"}}),
              ::testing::Contains(IsDiagnostic(
                  "torus.dims[2].link_bandwidth_gbps",
                  "(in torus.dims[2], which --set topology.torus.dims[2].name=z created)")));
}

// Past the length is still out of range, naming the index that appends.
TEST(OverrideAppend, PastTheLengthIsOutOfRange) {
  EXPECT_THAT(
      pod_errors({{"topology.torus.dims[3].size", "2"}}),
      ElementsAre(IsDiagnostic("topology.torus.dims[3].size",
                               "index 3 is out of range: topology.torus.dims has 2 elements in " +
                                   slice_2x2().string() + " (index 2 appends one)")));
}

// A mesh axis over the new dimension: `workload.mesh.axes[1]` on a workload
// whose mesh has one axis, with the data-parallel axes naming it.
TEST(OverrideAppend, AMeshAxis) {
  const PodSpec pod = load_topology_file(slice_2x2(), third_dimension());
  const Overrides o = {{"workload.mesh.axes[1].name", "data"},
                       {"workload.mesh.axes[1].dims", "[z]"},
                       {"workload.sharding.data_axes[0]", "data"}};
  const WorkloadSpec w = load_workload_file(llama_2x2(), pod, o);
  ASSERT_EQ(w.mesh.size(), 2U);
  EXPECT_EQ(w.mesh[1].name, "data");
  EXPECT_EQ(w.mesh[1].dims, (std::vector<uint32_t>{2}));  // torus dimension z
  ASSERT_TRUE(w.serving.has_value());
  EXPECT_EQ(w.serving->sharding.data_axes, (std::vector<std::string>{"data"}));
  EXPECT_EQ(w.overrides.size(), 3U);
}

// A scalar list grows the same way: element `length` appends a value.
TEST(OverrideAppend, AnElementOfAListOfScalars) {
  const PodSpec pod = load_topology_file(slice_2x2(), third_dimension());
  const WorkloadSpec w =
      load_workload_file(llama_2x2(), pod, {{"workload.mesh.axes[0].dims[2]", "z"}});
  ASSERT_EQ(w.mesh.size(), 1U);
  EXPECT_EQ(w.mesh[0].dims, (std::vector<uint32_t>{0, 1, 2}));
  try {
    load_workload_file(llama_2x2(), pod, {{"workload.mesh.axes[0].dims[3]", "z"}});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsDiagnostic("workload.mesh.axes[0].dims[3]",
                                         "workload.mesh.axes[0].dims has 2 elements in")));
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("(index 2 appends one)"));
  }
}

}  // namespace
}  // namespace podsim::config
