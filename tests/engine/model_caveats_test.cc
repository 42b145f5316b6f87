// engine::out_of_step_collectives: which collectives the analytical model may
// time apart from flow (tests/engine/model_agreement_random_test.cc holds
// its split against both models on random collectives).
#include "engine/model_caveats.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "specs.h"
#include "topo/pod.h"

namespace podsim::engine {
namespace {

using podsim::testing::collective;

config::WorkloadSpec on_mesh(const config::PodSpec& pod) {
  config::WorkloadSpec w;
  w.name = "w";
  for (uint32_t d = 0; d < pod.torus.dims.size(); ++d)
    w.mesh.push_back({pod.torus.dims[d].name, {d}});
  if (pod.slices > 1)
    w.mesh.push_back({"dcn", {config::kSliceDimIndex}});
  return w;
}

void add(config::WorkloadSpec& w, const std::string& name, config::CollectiveKind kind,
         std::vector<std::string> axes) {
  w.operations.push_back({name, {}, 1, collective(kind, 1 << 20, std::move(axes))});
}

TEST(OutOfStep, RingCollectivesOverDimensionsThatDifferAreNamed) {
  const config::PodSpec pod = podsim::testing::v5e_torus({{"x", 4, true}, {"y", 4, false}});
  config::WorkloadSpec w = on_mesh(pod);
  add(w, "over_x", config::CollectiveKind::kAllReduce, {"x"});
  add(w, "ring_and_line", config::CollectiveKind::kAllReduce, {"x", "y"});
  add(w, "gather", config::CollectiveKind::kAllGather, {"y", "x"});
  add(w, "scatter", config::CollectiveKind::kReduceScatter, {"x", "y"});
  add(w, "shuffle", config::CollectiveKind::kAllToAll, {"x", "y"});  // starts at once
  add(w, "bcast", config::CollectiveKind::kBroadcast, {"x", "y"});   // ICI alone
  EXPECT_EQ(out_of_step_collectives(topo::Pod(pod), w),
            (std::vector<std::string>{"'ring_and_line' over [x, y]", "'gather' over [y, x]",
                                      "'scatter' over [x, y]"}));
}

TEST(OutOfStep, DimensionsAlikeKeepStepAndADcnPhaseFollowsThem) {
  config::PodSpec pod = podsim::testing::v5e_torus({{"x", 4, true}, {"y", 4, true}});
  pod.slices = 2;
  pod.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
  config::WorkloadSpec w = on_mesh(pod);
  add(w, "reduce", config::CollectiveKind::kAllReduce, {"x", "y", "dcn"});
  add(w, "bcast_ici", config::CollectiveKind::kBroadcast, {"x", "y"});
  add(w, "bcast_dcn", config::CollectiveKind::kBroadcast, {"dcn", "x"});  // a DCN stage joins
  EXPECT_EQ(out_of_step_collectives(topo::Pod(pod), w),
            (std::vector<std::string>{"'bcast_dcn' over [dcn, x]"}));
}

TEST(OutOfStep, AServingStepIsNamedByTheCollectivesItLowersTo) {
  // Tensor parallelism over x alone reduces over x: in step. A 2D layout
  // over x (a ring of 4) and y (a line of 2), and one axis over both, also
  // reduce and gather over both at once: named, each kind once.
  const config::PodSpec pod = podsim::testing::v5e_torus({{"x", 4, true}, {"y", 2, false}});
  config::WorkloadSpec w = on_mesh(pod);
  config::ServingSpec s;
  s.model = podsim::testing::llama3_8b();
  s.scenario.batch = 8;
  s.scenario.context_len = 1024;
  s.sharding.tensor_axes = {"x"};
  w.serving = s;
  EXPECT_TRUE(out_of_step_collectives(topo::Pod(pod), w).empty());
  w.serving->sharding.tensor_axes = {"x", "y"};
  EXPECT_EQ(out_of_step_collectives(topo::Pod(pod), w),
            (std::vector<std::string>{"the step's all-reduce over [x, y]",
                                      "the step's all-gather over [x, y]"}));
  w.mesh = {{"xy", {0, 1}}};
  w.serving->sharding.tensor_axes = {"xy"};
  EXPECT_EQ(out_of_step_collectives(topo::Pod(pod), w),
            (std::vector<std::string>{"the step's all-gather over [xy]",
                                      "the step's all-reduce over [xy]"}));
}

}  // namespace
}  // namespace podsim::engine
