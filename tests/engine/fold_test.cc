// Replica folding on pods with faults (engine/fold.h): the replicas a fault
// reaches are played chip by chip and one healthy replica stands for the
// rest, and the result is the full run's bit for bit: step time, critical
// chip, breakdowns, every chip's spans (through its stand-in), link
// statistics unfolded and energy. Each case also says how many replicas a
// fault must reach, so a fold that silently stops engaging fails here.
// Every case runs on the flow and the analytical model, with the healthy
// replica's own translations played one chip per class (partial classes,
// topo::SymmetryClasses::make_within) and without.
#include "engine/fold.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "engine/energy.h"
#include "engine/link_usage.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "shipped.h"
#include "specs.h"
#include "step_compare.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {
namespace fold_test {

using podsim::testing::TorusDim;

// LLaMA-3-8B decode, tensor parallel over `tensor`, data parallel over the
// other dimensions (one replica per coordinate along them).
config::WorkloadSpec decode(const config::PodSpec& pod, const std::vector<std::string>& tensor) {
  config::WorkloadSpec w;
  w.name = "dense";
  std::vector<uint32_t> data_dims;
  for (uint32_t d = 0; d < pod.torus.dims.size(); ++d) {
    const std::string& name = pod.torus.dims[d].name;
    if (std::find(tensor.begin(), tensor.end(), name) != tensor.end()) {
      w.mesh.push_back({name, {d}});
    } else {
      data_dims.push_back(d);
    }
  }
  uint32_t replicas = 1;
  for (const uint32_t d : data_dims) {
    replicas *= pod.torus.dims[d].size;
  }
  w.mesh.push_back({"data", data_dims});
  config::ServingSpec s;
  s.model = podsim::testing::llama3_8b();
  s.scenario.phase = config::Phase::kDecode;
  s.scenario.batch = 8 * replicas;
  s.scenario.context_len = 2048;
  s.sharding.tensor_axes = tensor;
  s.sharding.data_axes = {"data"};
  w.serving = s;
  return w;
}

struct FoldCase {
  std::string label;
  config::PodSpec pod;
  std::vector<std::string> tensor;
  std::vector<uint32_t> straggler;  // coordinates of a straggler passed to the engine
  bool reached = true;              // a fault reaches some replica's traffic
};

void PrintTo(const FoldCase& c, std::ostream* os) {
  *os << c.label;
}

config::PodSpec torus3(uint32_t x, uint32_t y, uint32_t z) {
  return podsim::testing::v5e_torus({{"x", x, true}, {"y", y, true}, {"z", z, true}});
}

std::vector<FoldCase> cases() {
  std::vector<FoldCase> out;
  {  // A failed link inside replica z = 1, along a tensor dimension.
    config::PodSpec p = torus3(4, 4, 4);
    p.failed_links.push_back({0, {1, 2, 1}, 1, +1});
    out.push_back({"failed_link_in_a_replica", p, {"x", "y"}, {}, true});
  }
  {  // The same on a 2D slice: replicas are the columns.
    config::PodSpec p = podsim::testing::v5e_torus({{"x", 4, true}, {"y", 8, true}});
    p.failed_links.push_back({0, {2, 3}, 0, -1});
    out.push_back({"failed_link_2d", p, {"x"}, {}, true});
  }
  {  // A degraded link along a tensor dimension.
    config::PodSpec p = torus3(4, 4, 4);
    config::DegradedLinkSpec g;
    g.coords = {0, 0, 3};
    g.dim = 0;
    g.direction = +1;
    g.bandwidth_factor = 0.25;
    g.extra_latency = sim::Time::us(2);
    p.degraded_links.push_back(g);
    out.push_back({"degraded_link", p, {"x", "y"}, {}, true});
  }
  {  // A failed link along the data dimension: it carries no replica's traffic.
    config::PodSpec p = torus3(4, 4, 4);
    p.failed_links.push_back({0, {1, 1, 1}, 2, +1});
    out.push_back({"failed_link_between_replicas", p, {"x", "y"}, {}, false});
  }
  {  // Replicas along x, the first dimension: the detours around a failed y
     // link leave along x (tried first) through the neighbouring replicas'
     // chips, which are then played too.
    config::PodSpec p = torus3(4, 4, 4);
    p.failed_links.push_back({0, {2, 1, 1}, 1, +1});
    out.push_back({"detours_cross_other_replicas", p, {"y", "z"}, {}, true});
  }
  {  // A straggler slows its replica only.
    config::PodSpec p = torus3(4, 4, 4);
    out.push_back({"straggler", p, {"x", "y"}, {3, 1, 2}, true});
  }
  {  // Two failed links in two replicas, one of them on a line (no wraparound
     // along x, so detours are longer).
    config::PodSpec p =
        podsim::testing::v5e_torus({{"x", 4, false}, {"y", 4, true}, {"z", 4, true}});
    p.failed_links.push_back({0, {1, 0, 0}, 0, +1});
    p.failed_links.push_back({0, {2, 3, 2}, 1, -1});
    out.push_back({"two_faults_on_a_mesh_dimension", p, {"x", "y"}, {}, true});
  }
  return out;
}

struct FoldRun {
  FoldCase c;
  net::Model model = net::Model::kFlow;
  bool symmetry = true;
};

void PrintTo(const FoldRun& r, std::ostream* os) {
  *os << r.c.label;
}

StepResult run(const FoldCase& c, bool fold, const topo::Pod& pod, const chip::ComputeModel& slow,
               net::Model model, bool symmetry) {
  const config::WorkloadSpec w = decode(c.pod, c.tensor);
  const topo::DeviceMesh mesh = workload_mesh(pod, w);
  const workload::Program program = workload::lower(*w.serving, mesh_axes(mesh));
  const auto compute = chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip,
                                                chip::Efficiency{});
  StepOptions options;
  options.network = network_options(pod, model);
  options.fold_replicas = fold;
  options.symmetry = symmetry;
  if (!c.straggler.empty()) {
    options.stragglers.emplace_back(pod.chip_at(0, c.straggler), &slow);
  }
  return run_step(pod, mesh, program, *compute, options);
}

using testing::expect_same_unfolded;

class FaultyFold : public ::testing::TestWithParam<FoldRun> {};

TEST_P(FaultyFold, GivesTheFullRunsResultsBitForBit) {
  const FoldCase& c = GetParam().c;
  const net::Model model = GetParam().model;
  const topo::Pod pod(c.pod);
  config::ChipSpec slower_chip = pod.spec().chip;
  chip::Efficiency half;
  half.mxu = 0.5;
  half.hbm = 0.5;
  const auto slow = chip::make_compute_model(chip::ComputeModelKind::kRoofline, slower_chip, half);
  const StepResult folded = run(c, true, pod, *slow, model, GetParam().symmetry);
  const StepResult full = run(c, false, pod, *slow, model, true);
  ASSERT_EQ(full.simulated_chips, pod.chip_count());
  EXPECT_TRUE(full.represented_by.empty());
  // Folded: fewer chips, at least one replica played beside the healthy one.
  EXPECT_LT(folded.simulated_chips, pod.chip_count()) << folded.simulation;
  EXPECT_EQ(folded.simulation.find("reached by faults") != std::string::npos, c.reached)
      << folded.simulation;
  // With symmetry on, the healthy replica plays one chip per class of its
  // own translations: every case has one.
  if (GetParam().symmetry) {
    EXPECT_TRUE(folded.symmetric) << folded.simulation;
    EXPECT_LT(folded.played_chips, folded.simulated_chips) << folded.simulation;
  } else {
    EXPECT_FALSE(folded.symmetric) << folded.simulation;
  }
  std::cout << c.label << ": " << folded.simulated_chips << " of " << pod.chip_count()
            << " chips simulated, " << folded.played_chips << " played; " << folded.simulation
            << "\n";
  ASSERT_EQ(folded.represented_by.size(), pod.chip_count());

  expect_same_unfolded(pod, folded, full);
}

std::vector<FoldRun> runs() {
  std::vector<FoldRun> out;
  for (const FoldCase& c : cases()) {
    for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
      for (const bool symmetry : {true, false}) {
        out.push_back({c, model, symmetry});
      }
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(FaultyPods, FaultyFold, ::testing::ValuesIn(runs()),
                         [](const auto& param) {
                           return param.param.c.label +
                                  (param.param.model == net::Model::kFlow ? "_flow"
                                                                          : "_analytical") +
                                  (param.param.symmetry ? "" : "_no_symmetry");
                         });

TEST(FoldChoice, ReplicasAFaultReachesArePlayedAndTheFirstCleanOneStandsForTheRest) {
  // 4x4x4, tensor over x and y: 4 replicas along z. A failed y link in the
  // plane z = 2: that replica is dirty; its detours around the link stay in
  // the plane (x is tried before z), so it touches no other.
  config::PodSpec spec = torus3(4, 4, 4);
  spec.failed_links.push_back({0, {0, 0, 2}, 1, +1});
  const topo::Pod pod(spec);
  const FoldChoice f = choose_fold(pod, {0, 1}, true, {}, false);
  EXPECT_TRUE(f.why_not.empty()) << f.why_not;
  EXPECT_EQ(f.faulty_replicas, 1U);
  ASSERT_EQ(f.chips.size(), 32U);  // the plane z = 0 and the plane z = 2
  for (const topo::ChipId c : f.chips) {
    EXPECT_TRUE(pod.coord(c, 2) == 0 || pod.coord(c, 2) == 2) << c;
  }
  const std::vector<uint32_t> at{1, 3, 3};
  EXPECT_EQ(f.represented_by[pod.chip_at(0, at)], pod.chip_at(0, std::vector<uint32_t>{1, 3, 0}));

  // A fault in every replica: nothing to fold.
  for (uint32_t z = 1; z < 4; ++z) {
    spec.failed_links.push_back({0, {0, 0, z}, 1, +1});
  }
  spec.failed_links.erase(spec.failed_links.begin() + 0);
  spec.failed_links.push_back({0, {0, 0, 0}, 1, +1});
  const topo::Pod everywhere(spec);
  const FoldChoice g = choose_fold(everywhere, {0, 1}, true, {}, false);
  EXPECT_EQ(g.chips.size(), everywhere.chip_count());
  EXPECT_EQ(g.why_not, "the faults reach every replica");

  // Sends between named pairs keep their planned routes: not folded.
  const FoldChoice h = choose_fold(pod, {0, 1}, true, {}, true);
  EXPECT_EQ(h.chips.size(), pod.chip_count());
  EXPECT_FALSE(h.why_not.empty());
}

}  // namespace fold_test
}  // namespace podsim::engine
