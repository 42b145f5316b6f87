// How ALGORITHM_AUTO chooses a twisted dimension's schedule (coll/choose.h):
// on the run's own network model, because the analytical model ranks the
// candidates differently from flow and packet. The mechanism, pinned on the
// two cases where it decided a shipped comparison (an all-reduce over all of
// the twisted v5p 4x4x8, a reduce-scatter over all of the twisted 8x16x16):
// each rotated share alone takes the same time on the analytical and flow
// models, to the picosecond; the shares together do not, by up to 15% either
// way, so the gap is in how the models let shares that meet on a link share
// it, not in any one share's schedule.
#include "coll/choose.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "coll_fixture.h"
#include "config/topology_loader.h"
#include "sim/simulation.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

double choose_seconds(const topo::Pod& pod, const Plan& plan, net::Model model) {
  net::Options options;
  options.model = model;
  auto network = net::make_network(pod, options);
  sim::Simulation sim;
  CollectiveRun run(pod, *network, plan);
  run.start(sim);
  sim.run();
  EXPECT_TRUE(run.done());
  return (run.end_time() - run.start_time()).to_s();
}

std::vector<uint32_t> every_dim(const topo::Pod& pod) {
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    dims.push_back(d);
  }
  return dims;
}

// `kind` of 256 KiB per chip over one axis spanning every dimension.
struct OverAll {
  OverAll(const char* file, CollectiveKind kind)
      : pod(config::load_topology_file(file)),
        mesh(pod, {{"all", every_dim(pod)}}),
        c(collective(kind, pod.chip_count() * 256 * 1024, {"all"})) {}
  topo::Pod pod;
  topo::DeviceMesh mesh;
  config::CollectiveSpec c;
};

size_t fastest_of(const std::vector<double>& t) {
  size_t best = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] < t[best]) {
      best = i;
    }
  }
  return best;
}

// 32 MiB all-reduce over all of the twisted v5p 4x4x8: candidates in
// candidate_plans() order are x line + y line, x cycle + y line, x line +
// y cycle, x cycle + y cycle (z is an untwisted ring in all four).
TEST(ChooseTwisted, SharesAloneAgreeAcrossModelsAndTogetherRankDifferently) {
  const OverAll k("topologies/v5p-4x4x8-twisted.textproto", CollectiveKind::kAllReduce);
  const std::vector<Plan> candidates = candidate_plans(k.pod, k.mesh, k.c);
  ASSERT_EQ(candidates.size(), 4u);
  std::vector<double> analytical;
  std::vector<double> flow;
  for (const Plan& plan : candidates) {
    ASSERT_EQ(plan.shares.size(), 3u) << plan.schedule;
    for (size_t s = 0; s < plan.shares.size(); ++s) {
      Plan alone = plan;
      alone.shares = {plan.shares[s]};
      EXPECT_EQ(choose_seconds(k.pod, alone, net::Model::kAnalytical),
                choose_seconds(k.pod, alone, net::Model::kFlow))
          << plan.schedule << ", share " << s << " alone";
    }
    analytical.push_back(choose_seconds(k.pod, plan, net::Model::kAnalytical));
    flow.push_back(choose_seconds(k.pod, plan, net::Model::kFlow));
  }
  // Together: the lines 323.3 us on analytical, 279.9 on flow (+15%); the x
  // cycle 277.6 against 294.9 (-6%).
  EXPECT_GT(analytical[0], flow[0] * 1.10);
  EXPECT_LT(analytical[1], flow[1] * 0.97);
  EXPECT_EQ(fastest_of(analytical), 1u) << candidates[fastest_of(analytical)].schedule;
  EXPECT_EQ(fastest_of(flow), 0u) << candidates[fastest_of(flow)].schedule;
}

// lower() keeps the candidate the run's model finds fastest; a packet run
// keeps flow's, which is packet's fastest here too.
TEST(ChooseTwisted, EachModelKeepsItsOwnFastest) {
  const OverAll k("topologies/v5p-4x4x8-twisted.textproto", CollectiveKind::kAllReduce);
  const std::vector<Plan> candidates = candidate_plans(k.pod, k.mesh, k.c);
  for (const net::Model model : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    std::vector<double> t;
    for (const Plan& plan : candidates) {
      t.push_back(choose_seconds(k.pod, plan, model));
    }
    net::Options options;
    options.model = model;
    const Plan chosen = lower(k.pod, k.mesh, k.c, options);
    EXPECT_EQ(chosen.schedule, candidates[fastest_of(t)].schedule + " [auto: fastest of 4]")
        << net::to_string(model);
    EXPECT_EQ(choose_seconds(k.pod, chosen, model), t[fastest_of(t)]) << net::to_string(model);
  }
  EXPECT_EQ(choice_model(net::Model::kAnalytical), net::Model::kAnalytical);
  EXPECT_EQ(choice_model(net::Model::kFlow), net::Model::kFlow);
  EXPECT_EQ(choice_model(net::Model::kPacket), net::Model::kFlow);
}

// A packet run chooses on flow: over every axis of the twisted v5p 4x4x8
// (each dimension alone and all three), for every kind with a choice, the
// schedule flow keeps is also the fastest on packet.
TEST(ChooseTwisted, FlowsChoiceIsPacketsOnTheTwisted4x4x8) {
  const topo::Pod pod(config::load_topology_file("topologies/v5p-4x4x8-twisted.textproto"));
  const topo::DeviceMesh per_dim = one_axis_per_dim(pod);
  const topo::DeviceMesh whole(pod, {{"all", every_dim(pod)}});
  int choices = 0;
  for (const char* axis : {"x", "y", "z", "all"}) {
    const topo::DeviceMesh& mesh = std::string(axis) == "all" ? whole : per_dim;
    const uint64_t n = mesh.axis_size(axis);
    for (const CollectiveKind kind : {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                                      CollectiveKind::kAllReduce, CollectiveKind::kBroadcast}) {
      const auto c =
          collective(kind, kind == CollectiveKind::kBroadcast ? 16 * kMiB : n * 256 * 1024, {axis});
      const std::vector<Plan> candidates = candidate_plans(pod, mesh, c);
      if (candidates.size() < 2) {
        continue;
      }
      ++choices;
      std::vector<double> packet;
      for (const Plan& plan : candidates) {
        packet.push_back(choose_seconds(pod, plan, net::Model::kPacket));
      }
      net::Options options;
      options.model = net::Model::kPacket;
      const Plan chosen = lower(pod, mesh, c, options);
      EXPECT_EQ(choose_seconds(pod, chosen, net::Model::kPacket), packet[fastest_of(packet)])
          << to_string(kind) << " over " << axis << ": kept " << chosen.schedule << ", packet's "
          << candidates[fastest_of(packet)].schedule;
    }
  }
  // x, y and all choose how to run the twisted dimensions; a broadcast over
  // z (an untwisted ring), x or y as cycles, or all three as rings chooses
  // between whole and split pieces.
  EXPECT_EQ(choices, 13);
}

// The candidates' simulations are work like any other: they charge the
// run's budget, so a run's --max-events bounds its schedule choices too
// (before, they ran unbounded ahead of the step's own simulation).
TEST(ChooseTwisted, CandidatesChargeTheRunsBudget) {
  const OverAll k("topologies/v5p-4x4x8-twisted.textproto", CollectiveKind::kAllReduce);
  net::Options options;
  options.model = net::Model::kFlow;
  sim::WorkBudget roomy(sim::kDefaultWorkLimits);
  const Plan chosen = lower(k.pod, k.mesh, k.c, options, &roomy);
  EXPECT_EQ(chosen.schedule, lower(k.pod, k.mesh, k.c, options).schedule);
  EXPECT_GT(roomy.events(), 0u);
  sim::WorkBudget tight(sim::WorkLimits{.max_events = 10});
  EXPECT_THROW(lower(k.pod, k.mesh, k.c, options, &tight), sim::WorkLimitExceeded);
}

// 512 MiB reduce-scatter over all of the twisted v5p 8x16x16 (x twisted):
// analytical 1741.0 us on the x line against 1735.1 on its cycle, flow
// 1803.3 against 1843.7. A flow run now runs the line.
TEST(ChooseTwisted, FlowRunOfTheBigReduceScatterRunsTheLine) {
  const OverAll k("topologies/v5p-8x16x16-twisted.textproto", CollectiveKind::kReduceScatter);
  const std::vector<Plan> candidates = candidate_plans(k.pod, k.mesh, k.c);
  ASSERT_EQ(candidates.size(), 2u);
  const double line = choose_seconds(k.pod, candidates[0], net::Model::kFlow);
  const double cycle = choose_seconds(k.pod, candidates[1], net::Model::kFlow);
  EXPECT_LT(line, cycle);
  EXPECT_GT(choose_seconds(k.pod, candidates[0], net::Model::kAnalytical),
            choose_seconds(k.pod, candidates[1], net::Model::kAnalytical));
  const Plan chosen = lower(k.pod, k.mesh, k.c, net::Options{});
  EXPECT_EQ(chosen.schedule, candidates[0].schedule + " [auto: fastest of 2]");
}

}  // namespace
}  // namespace podsim::coll::testing
