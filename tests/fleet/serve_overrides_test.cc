// `--set` on serve files (config/serve_overrides.h, issue 32 point 3): the
// serve file's own fields under serve., every replica's topology and
// workload under topology. and workload., one replica entry's under
// replicas[i].; applied before the rules, recorded in the specs, and wrong
// ones named with the nearest valid paths.
#include "config/serve_overrides.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "config/serve_loader.h"

namespace podsim::config {
namespace serve_overrides_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

std::filesystem::path serve_dir() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  const std::filesystem::path root =
      env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
  return root / "workloads/serve";
}

std::filesystem::path poisson() {
  return serve_dir() / "llama3-8b-poisson.serve.textproto";
}

std::filesystem::path mixed_chips() {
  return serve_dir() / "llama3-70b-mixed-chips.serve.textproto";
}

std::vector<Diagnostic> errors_of(const std::filesystem::path& file, const Overrides& o) {
  try {
    load_serve_file(file, o);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

auto IsSetError(const std::string& path, const std::string& part) {
  return AllOf(Field("file", &Diagnostic::file, "--set"), Field("field", &Diagnostic::field, path),
               Field("message", &Diagnostic::message, HasSubstr(part)));
}

TEST(ServeOverrides, TheServeFilesOwnFields) {
  const ServeSpec base = load_serve_file(poisson());
  const Overrides o = {{"serve.replicas[0].max_batch", "16"},
                       {"serve.replicas[0].count", "4"},
                       {"serve.replicas[0].scheduler", "CHUNKED_PREFILL"},
                       {"serve.arrivals.poisson.rate_per_s", "3"},
                       {"serve.slo.ttft_ms", "250"},
                       {"serve.router", "ROUND_ROBIN"}};
  const ServeSpec spec = load_serve_file(poisson(), o);
  ASSERT_EQ(spec.replicas.size(), 1U);
  EXPECT_EQ(spec.replicas[0].max_batch, 16U);
  EXPECT_EQ(spec.replicas[0].count, 4U);
  EXPECT_EQ(spec.replicas[0].scheduler, SchedulerKind::kChunkedPrefill);
  EXPECT_EQ(spec.arrivals.rate_per_s, 3);
  EXPECT_EQ(spec.slo.ttft_ms, 250);
  EXPECT_EQ(spec.slo.tpot_ms, base.slo.tpot_ms);  // untouched
  EXPECT_EQ(spec.router, RouterKind::kRoundRobin);
  // Recorded in order; the replica's inputs took none of them.
  ASSERT_EQ(spec.overrides.size(), o.size());
  EXPECT_EQ(spec.overrides[0], "serve.replicas[0].max_batch=16");
  EXPECT_EQ(spec.overrides[5], "serve.router=ROUND_ROBIN");
  EXPECT_TRUE(spec.replicas[0].pod.overrides.empty());
  EXPECT_TRUE(spec.replicas[0].workload.overrides.empty());
  EXPECT_TRUE(base.overrides.empty());
}

TEST(ServeOverrides, TopologyAndWorkloadGoToEveryReplica) {
  const Overrides o = {{"topology.torus.dims[0].link_bandwidth_gbps", "100"},
                       {"workload.sharding.overlap_collectives", "false"}};
  const ServeSpec base = load_serve_file(mixed_chips());
  const ServeSpec spec = load_serve_file(mixed_chips(), o);
  ASSERT_EQ(spec.replicas.size(), 2U);
  for (size_t i = 0; i < spec.replicas.size(); ++i) {
    const ServeReplicaSpec& r = spec.replicas[i];
    EXPECT_EQ(r.pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(100)) << r.name;
    EXPECT_EQ(r.pod.torus.dims[1], base.replicas[i].pod.torus.dims[1]) << r.name;  // untouched
    EXPECT_EQ(r.pod.overrides,
              (std::vector<std::string>{"topology.torus.dims[0].link_bandwidth_gbps=100"}));
    ASSERT_TRUE(r.workload.serving.has_value());
    EXPECT_FALSE(r.workload.serving->sharding.overlap_collectives);
  }
}

// replicas[i]. names one entry; with the every-replica root the later of
// two on one field wins, whatever their roots.
TEST(ServeOverrides, OneReplicaEntrysOwnInputs) {
  const Overrides o = {{"topology.torus.dims[0].link_bandwidth_gbps", "100"},
                       {"replicas[1].topology.torus.dims[0].link_bandwidth_gbps", "25"},
                       {"replicas[0].workload.scenario.batch", "8"}};
  const ServeSpec spec = load_serve_file(mixed_chips(), o);
  EXPECT_EQ(spec.replicas[0].pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(100));
  EXPECT_EQ(spec.replicas[1].pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(25));
  EXPECT_EQ(
      spec.replicas[1].pod.overrides,
      (std::vector<std::string>{"topology.torus.dims[0].link_bandwidth_gbps=100",
                                "replicas[1].topology.torus.dims[0].link_bandwidth_gbps=25"}));
  EXPECT_EQ(spec.replicas[0].workload.overrides,
            (std::vector<std::string>{"replicas[0].workload.scenario.batch=8"}));
  EXPECT_TRUE(spec.replicas[1].workload.overrides.empty());
  // The other order: the every-replica override, later, wins.
  const ServeSpec later = load_serve_file(mixed_chips(), {o[1], o[0]});
  EXPECT_EQ(later.replicas[1].pod.torus.dims[0].link_bandwidth, sim::Bandwidth::from_gbps(100));
}

// A serve override may append a replica entry (issue 32's append rule), and
// replicas[i]. then reaches it.
TEST(ServeOverrides, AnAppendedReplicaEntry) {
  const ServeSpec base = load_serve_file(mixed_chips());
  const Overrides o = {{"serve.replicas[2].name", "v5e-b"},
                       {"serve.replicas[2].topology", "../../topologies/v5e-4x4.textproto"},
                       {"serve.replicas[2].workload", "llama3-70b-v5e-4x4.textproto"},
                       {"serve.replicas[2].max_batch", "32"},
                       {"serve.replicas[2].max_tokens_per_step", "2048"},
                       {"replicas[2].topology.torus.dims[1].link_bandwidth_gbps", "75"}};
  const ServeSpec spec = load_serve_file(mixed_chips(), o);
  ASSERT_EQ(spec.replicas.size(), 3U);
  EXPECT_EQ(spec.replicas[2].name, "v5e-b");
  EXPECT_EQ(spec.replicas[2].max_batch, 32U);
  EXPECT_EQ(spec.replicas[2].pod.torus.dims[1].link_bandwidth, sim::Bandwidth::from_gbps(75));
  EXPECT_EQ(spec.replicas[0].pod.torus, base.replicas[0].pod.torus);
}

// Rules see the overridden values, and name the override.
TEST(ServeOverrides, RulesHoldForOverriddenValues) {
  EXPECT_THAT(errors_of(poisson(), {{"serve.replicas[0].max_batch", "0"}}),
              ElementsAre(AllOf(Field("field", &Diagnostic::field, "replicas[0].max_batch"),
                                Field("message", &Diagnostic::message,
                                      HasSubstr("(set by --set serve.replicas[0].max_batch=0)")))));
  const auto topology = errors_of(poisson(), {{"topology.torus.dims[0].link_bandwidth_gbps", "0"}});
  ASSERT_EQ(topology.size(), 1U);
  EXPECT_THAT(topology[0].message,
              HasSubstr("(set by --set topology.torus.dims[0].link_bandwidth_gbps=0)"));
  EXPECT_THAT(topology[0].file, HasSubstr("v5e-2x2.textproto"));
}

TEST(ServeOverrides, WrongPathsNameTheNearestValidOnes) {
  EXPECT_THAT(errors_of(poisson(), {{"serve.replicas[0].max_bach", "8"}}),
              ElementsAre(IsSetError("serve.replicas[0].max_bach",
                                     "nearest valid paths: serve.replicas[0].max_batch")));
  EXPECT_THAT(errors_of(poisson(), {{"serve.arrivals.poisson.rate", "8"}}),
              ElementsAre(IsSetError("serve.arrivals.poisson.rate",
                                     "nearest valid paths: serve.arrivals.poisson.rate_per_s")));
  EXPECT_THAT(
      errors_of(mixed_chips(), {{"replicas[1].topology.torus.dim[0].size", "8"}}),
      ElementsAre(IsSetError("replicas[1].topology.torus.dim[0].size",
                             "nearest valid paths: replicas[1].topology.torus.dims[0].size")));
  EXPECT_THAT(
      errors_of(mixed_chips(), {{"replicas[2].workload.scenario.batch", "8"}}),
      ElementsAre(IsSetError("replicas[2].workload.scenario.batch", "index 2 is out of range: ")));
  EXPECT_THAT(errors_of(poisson(), {{"replicas[0].max_batch", "8"}, {"slo.ttft_ms", "5"}}),
              ElementsAre(IsSetError("replicas[0].max_batch",
                                     "the serve file's own fields are serve.replicas[0]...."),
                          IsSetError("slo.ttft_ms", "the path must start with \"serve.\"")));
}

TEST(ServeOverrides, Roots) {
  EXPECT_TRUE(serve_rooted("serve.slo.ttft_ms"));
  EXPECT_TRUE(serve_rooted("topology.chip.hbm_bytes"));
  EXPECT_TRUE(serve_rooted("replicas[12].workload.scenario.batch"));
  EXPECT_FALSE(serve_rooted("replicas[x].workload.scenario.batch"));
  EXPECT_FALSE(serve_rooted("replicas[1].serve.slo"));
  EXPECT_FALSE(serve_rooted("replicas[1].topology."));
  EXPECT_FALSE(serve_rooted("serve."));
  EXPECT_EQ(replica_roots("topology", 3), (OverrideRoots{"topology", "replicas[3].topology"}));
}

}  // namespace serve_overrides_test
}  // namespace podsim::config
