// TopologySource and WorkloadSource: an input parsed once and loaded many
// times (a sweep's points) gives what loading it afresh gives, for every
// set of overrides, errors included, and one load's overrides never leak
// into the next.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/overrides.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"

namespace podsim::config {
namespace {

Overrides set(const std::string& text) {
  return {parse_override(text)};
}

// The message of the InputError `f` throws ("" when it does not throw).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(InputSource, EmbeddedTopologyLoadsAsTheDefaultDoes) {
  const TopologySource source = TopologySource::embedded();
  const Overrides faster = set("topology.torus.dims[0].link_bandwidth_gbps=100");
  const PodSpec fresh = default_topology(faster);
  const PodSpec loaded = source.load(faster);
  EXPECT_EQ(loaded.torus.dims[0].link_bandwidth, fresh.torus.dims[0].link_bandwidth);
  EXPECT_EQ(loaded.torus.dims[1].link_bandwidth, fresh.torus.dims[1].link_bandwidth);
  EXPECT_EQ(loaded.overrides, fresh.overrides);
  EXPECT_EQ(loaded.source_file, fresh.source_file);
  EXPECT_EQ(loaded.source_sha256, fresh.source_sha256);
  // The next load starts from the file again, not from the last load.
  EXPECT_EQ(source.load().torus.dims[0].link_bandwidth,
            default_topology().torus.dims[0].link_bandwidth);
  EXPECT_NE(source.load().torus.dims[0].link_bandwidth, loaded.torus.dims[0].link_bandwidth);
}

TEST(InputSource, EmbeddedWorkloadLoadsAsTheDefaultDoes) {
  const PodSpec pod = default_topology();
  const WorkloadSource source = WorkloadSource::embedded();
  const WorkloadSpec loaded = source.load(pod, set("workload.scenario.batch=64"));
  EXPECT_EQ(loaded.serving->scenario.batch, 64u);
  EXPECT_EQ(loaded.overrides, default_workload(pod, set("workload.scenario.batch=64")).overrides);
  EXPECT_EQ(source.load(pod).serving->scenario.batch,
            default_workload(pod).serving->scenario.batch);
}

TEST(InputSource, OverrideThatBreaksARuleIsTheSameError) {
  const Overrides bad = set("topology.chip.hbm_bandwidth_gbps=-1");
  const std::string fresh = error_of([&] { default_topology(bad); });
  ASSERT_FALSE(fresh.empty());
  EXPECT_EQ(error_of([&] { TopologySource::embedded().load(bad); }), fresh);
  const PodSpec pod = default_topology();
  const Overrides bad_batch = set("workload.scenario.batch=0");
  const std::string fresh_w = error_of([&] { default_workload(pod, bad_batch); });
  ASSERT_FALSE(fresh_w.empty());
  EXPECT_EQ(error_of([&] { WorkloadSource::embedded().load(pod, bad_batch); }), fresh_w);
}

TEST(InputSource, FileThatCannotBeReadOrParsedFailsEveryLoad) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "podsim-source-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path missing = dir / "missing.textproto";
  const std::string not_there = error_of([&] { load_topology_file(missing); });
  ASSERT_FALSE(not_there.empty());
  const TopologySource absent = TopologySource::file(missing);
  EXPECT_EQ(error_of([&] { absent.load(); }), not_there);
  EXPECT_EQ(error_of([&] { absent.load(); }), not_there);

  const std::filesystem::path broken = dir / "broken.textproto";
  std::ofstream(broken) << "name: \"x\"\ntorus { dims { size: }\n";
  const std::string syntax = error_of([&] { load_topology_file(broken); });
  ASSERT_FALSE(syntax.empty());
  EXPECT_EQ(error_of([&] { TopologySource::file(broken).load(); }), syntax);
  const PodSpec pod = default_topology();
  EXPECT_EQ(error_of([&] { WorkloadSource::file(broken).load(pod); }),
            error_of([&] { load_workload_file(broken, pod); }));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace podsim::config
