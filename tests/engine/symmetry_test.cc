// Symmetric simulation (engine/symmetry.h) gives the full simulation's
// results bit for bit: every collective kind on 1D, 2D and 3D slices,
// wrapped, unwrapped, twisted and mixed, one slice or several joined by the
// DCN, and whole serving steps (dense,
// mixture-of-experts and pipelined, folded and not), compared field by field with the same
// run played on every chip. Each case also says which way it must have been
// played, so a symmetry that silently never engages fails here.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "shipped.h"
#include "specs.h"
#include "step_compare.h"
#include "topo/link.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {
namespace symmetry_test {

using podsim::testing::TorusDim;

config::PodSpec torus(const std::vector<TorusDim>& dims,
                      std::vector<config::TwistSpec> twists = {}) {
  config::PodSpec s = podsim::testing::v5e_torus(dims);
  s.torus.twists = std::move(twists);
  return s;
}

config::PodSpec shipped_topology(const std::string& name) {
  return config::load_topology_file(podsim::testing::source_dir() / "topologies" / name);
}

// `spec` as `slices` slices joined by the DCN (25 GB/s per chip, 10 us).
config::PodSpec sliced(config::PodSpec spec, uint32_t slices) {
  spec.slices = slices;
  spec.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(25), sim::Time::us(10)};
  return spec;
}

// One mesh axis per torus dimension, and "dcn" over the slices if several.
std::vector<config::MeshAxisDecl> mesh_of(const config::PodSpec& pod) {
  std::vector<config::MeshAxisDecl> mesh;
  for (uint32_t d = 0; d < pod.torus.dims.size(); ++d) {
    mesh.push_back({pod.torus.dims[d].name, {d}});
  }
  if (pod.slices > 1) {
    mesh.push_back({"dcn", {topo::kSliceDim}});
  }
  return mesh;
}

struct Pods {
  std::string label;
  config::PodSpec pod;
};

std::vector<Pods> pods() {
  return {
      {"ring8", torus({{"x", 8, true}})},
      {"line8", torus({{"x", 8, false}})},
      {"torus4x4", torus({{"x", 4, true}, {"y", 4, true}})},
      {"mesh4x4", torus({{"x", 4, false}, {"y", 4, false}})},
      {"torus8x4", torus({{"x", 8, true}, {"y", 4, true}})},
      {"twisted4x8", torus({{"x", 4, true}, {"y", 8, true}}, {{0, 1, 4}})},
      {"torus4x4x4", torus({{"x", 4, true}, {"y", 4, true}, {"z", 4, true}})},
      {"mixed4x4x8", torus({{"x", 4, false}, {"y", 4, true}, {"z", 8, true}})},
      {"v5p_4x4x8_twisted", shipped_topology("v5p-4x4x8-twisted.textproto")},
      // Several slices: translations move every slice alike, the DCN
      // switch stays.
      {"torus4x4_2slices", sliced(torus({{"x", 4, true}, {"y", 4, true}}), 2)},
      {"mixed4x2_3slices", sliced(torus({{"x", 4, true}, {"y", 2, false}}), 3)},
  };
}

bool any_wrapped(const config::PodSpec& pod) {
  for (const auto& d : pod.torus.dims) {
    if (d.wraparound && d.size > 1) {
      return true;
    }
  }
  return false;
}

struct OpCase {
  std::string label;
  config::PodSpec pod;
  config::WorkloadSpec workload;
  bool symmetric = false;  // must be played one chip per class
};

void PrintTo(const OpCase& c, std::ostream* os) {
  *os << c.label;
}

using podsim::testing::collective;

// One workload per collective kind, over every axis, the first or the last,
// with a size that does not divide evenly; twice, the second after the
// first, so a run also sees links that were busy before.
std::vector<OpCase> op_cases() {
  std::vector<OpCase> out;
  for (const Pods& p : pods()) {
    std::vector<std::string> all;
    config::WorkloadSpec base;
    base.mesh = mesh_of(p.pod);
    for (const config::MeshAxisDecl& axis : base.mesh) {
      all.push_back(axis.name);
    }
    const std::string first = all.front();
    const std::string last = all.back();
    struct Kind {
      std::string name;
      config::CollectiveSpec c;
      bool may_be_symmetric;
    };
    config::CollectiveSpec permute = collective(config::CollectiveKind::kPermute, 1 << 20, {first});
    permute.shift = 1;
    // Two hops of one link class: the representative's route names that
    // class twice, and alone in its component it must load it twice.
    config::CollectiveSpec permute2 = permute;
    permute2.shift = 2;
    const std::vector<Kind> kinds = {
        {"all_reduce", collective(config::CollectiveKind::kAllReduce, 3'000'017, all), true},
        {"all_gather", collective(config::CollectiveKind::kAllGather, 1 << 22, {last}), true},
        {"reduce_scatter", collective(config::CollectiveKind::kReduceScatter, 1 << 22, {first}),
         true},
        {"all_to_all", collective(config::CollectiveKind::kAllToAll, 1 << 22, all), true},
        // Over a line the shift is not the same at every place, but the
        // translations along the other dimensions still keep it.
        {"permute", permute, true},
        {"permute_by_2", permute2, true},
        {"broadcast", collective(config::CollectiveKind::kBroadcast, 1 << 22, all), false},
    };
    for (const Kind& k : kinds) {
      OpCase c{p.label + "_" + k.name, p.pod, base, k.may_be_symmetric && any_wrapped(p.pod)};
      c.workload.name = c.label;
      c.workload.operations.push_back({"one", {}, 1, k.c});
      c.workload.operations.push_back({"two", {0}, 2, k.c});
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::unique_ptr<chip::ComputeModel> roofline(const topo::Pod& pod) {
  return chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip,
                                  chip::Efficiency{});
}

// Symmetric runs apply on both of these models (engine/symmetry.h).
constexpr net::Model kSymmetricModels[] = {net::Model::kFlow, net::Model::kAnalytical};

OpListResult run_list(const OpCase& c, bool symmetry, net::Model model) {
  const topo::Pod pod(c.pod);
  const auto compute = roofline(pod);
  OpListOptions options;
  options.symmetry = symmetry;
  return run_op_list(pod, c.workload, network_options(pod, model), *compute, options);
}

class SymmetricOpList : public ::testing::TestWithParam<OpCase> {};

TEST_P(SymmetricOpList, GivesTheFullRunsResultsBitForBit) {
  for (const net::Model model : kSymmetricModels) {
    SCOPED_TRACE(std::string(net::to_string(model)));
    const OpListResult sym = run_list(GetParam(), true, model);
    const OpListResult full = run_list(GetParam(), false, model);
    EXPECT_EQ(sym.symmetric, GetParam().symmetric) << sym.simulation;
    EXPECT_FALSE(full.symmetric);
    if (sym.symmetric) {
      EXPECT_LT(sym.played_chips, full.played_chips);
      EXPECT_LT(sym.events, full.events);
    }
    testing::expect_same(sym, full);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKindOnEveryShape, SymmetricOpList, ::testing::ValuesIn(op_cases()),
                         [](const auto& param) { return param.param.label; });

// ---- serving steps ----

struct StepCase {
  std::string label;
  config::PodSpec pod;
  config::WorkloadSpec workload;  // serving, with its mesh
  bool fold = true;
  bool symmetric = false;
};

void PrintTo(const StepCase& c, std::ostream* os) {
  *os << c.label;
}

config::WorkloadSpec dense_decode(const config::PodSpec& pod, std::vector<std::string> tensor) {
  config::WorkloadSpec w;
  w.name = "dense";
  w.mesh = mesh_of(pod);
  config::ServingSpec s;
  s.model = podsim::testing::llama3_8b();
  s.scenario.phase = config::Phase::kDecode;
  s.scenario.batch = 32;
  s.scenario.context_len = 2048;
  s.sharding.tensor_axes = std::move(tensor);
  w.serving = s;
  return w;
}

// Stages along `axis`, two micro-batches in flight.
config::WorkloadSpec pipelined(config::WorkloadSpec w, const std::string& axis) {
  w.serving->sharding.pipeline_axis = axis;
  w.serving->scenario.micro_batches = 2;
  return w;
}

// The shipped Mixtral decode (experts over "data", tensor over "model") on
// another pod with dimensions x and y.
config::WorkloadSpec mixtral_on(const config::PodSpec& pod) {
  return config::load_workload_file(
      podsim::testing::source_dir() / "workloads/mixtral-8x7b-decode-v5e.textproto", pod);
}

std::vector<StepCase> step_cases() {
  const config::PodSpec t4x4 = torus({{"x", 4, true}, {"y", 4, true}});
  const config::PodSpec m4x4 = torus({{"x", 4, false}, {"y", 4, false}});
  const config::PodSpec tw4x8 = torus({{"x", 4, true}, {"y", 8, true}}, {{0, 1, 4}});
  const config::PodSpec r8 = torus({{"x", 8, true}});
  const config::PodSpec mixed = torus({{"x", 4, false}, {"y", 4, true}});
  const config::PodSpec s2 = sliced(t4x4, 2);
  return {
      {"dense_ring8", r8, dense_decode(r8, {"x"}), true, true},
      {"dense_torus4x4_tp_x", t4x4, dense_decode(t4x4, {"x"}), true, true},
      {"dense_torus4x4_tp_x_unfolded", t4x4, dense_decode(t4x4, {"x"}), false, true},
      {"dense_torus4x4_tp_xy", t4x4, dense_decode(t4x4, {"x", "y"}), true, true},
      {"dense_mesh4x4", m4x4, dense_decode(m4x4, {"x", "y"}), true, false},
      {"dense_mixed4x4", mixed, dense_decode(mixed, {"x", "y"}), true, true},
      {"dense_twisted4x8", tw4x8, dense_decode(tw4x8, {"x", "y"}), true, true},
      {"moe_torus4x4", t4x4, mixtral_on(t4x4), true, true},
      {"moe_torus4x4_unfolded", t4x4, mixtral_on(t4x4), false, true},
      {"moe_twisted4x8", tw4x8, mixtral_on(tw4x8), true, true},
      {"moe_mesh4x4", m4x4, mixtral_on(m4x4), true, false},
      {"pipeline_torus4x4", t4x4, pipelined(dense_decode(t4x4, {"x"}), "y"), true, true},
      {"pipeline_torus4x4_unfolded", t4x4, pipelined(dense_decode(t4x4, {"x"}), "y"), false, true},
      {"pipeline_twisted4x8", tw4x8, pipelined(dense_decode(tw4x8, {"y"}), "x"), true, true},
      {"pipeline_mesh4x4", m4x4, pipelined(dense_decode(m4x4, {"x"}), "y"), true, false},
      {"dense_2slices_tp_xy", s2, dense_decode(s2, {"x", "y"}), true, true},
      {"dense_2slices_tp_x_unfolded", s2, dense_decode(s2, {"x"}), false, true},
      {"dense_2slices_tp_over_dcn", s2, dense_decode(s2, {"x", "dcn"}), true, true},
      {"pipeline_over_dcn", s2, pipelined(dense_decode(s2, {"x", "y"}), "dcn"), true, true},
  };
}

StepResult run_serving(const StepCase& c, bool symmetry, net::Model model) {
  const topo::Pod pod(c.pod);
  const topo::DeviceMesh mesh = workload_mesh(pod, c.workload);
  const workload::Program program = workload::lower(*c.workload.serving, mesh_axes(mesh));
  const auto compute = roofline(pod);
  StepOptions options;
  options.network = network_options(pod, model);
  options.fold_replicas = c.fold;
  options.symmetry = symmetry;
  return run_step(pod, mesh, program, *compute, options);
}

using testing::expect_same;

class SymmetricStep : public ::testing::TestWithParam<StepCase> {};

TEST_P(SymmetricStep, GivesTheFullRunsResultsBitForBit) {
  for (const net::Model model : kSymmetricModels) {
    SCOPED_TRACE(std::string(net::to_string(model)));
    const StepResult sym = run_serving(GetParam(), true, model);
    const StepResult full = run_serving(GetParam(), false, model);
    EXPECT_EQ(sym.symmetric, GetParam().symmetric) << sym.simulation;
    EXPECT_FALSE(full.symmetric);
    // Both replay their repeated collectives on the analytical model
    // (coll/replay.h), the symmetric run over its classes.
    if (sym.symmetric) {
      EXPECT_LT(sym.events, full.events);
    }
    expect_same(sym, full);
  }
}

INSTANTIATE_TEST_SUITE_P(DenseAndExperts, SymmetricStep, ::testing::ValuesIn(step_cases()),
                         [](const auto& param) { return param.param.label; });

TEST(SymmetricRuns, OtherNetworkModelsAndStragglersUnfoldedArePlayedInFull) {
  const StepCase c = step_cases()[1];
  const topo::Pod pod(c.pod);
  const topo::DeviceMesh mesh = workload_mesh(pod, c.workload);
  const workload::Program program = workload::lower(*c.workload.serving, mesh_axes(mesh));
  const auto compute = roofline(pod);
  StepOptions options;
  options.network = network_options(pod, net::Model::kPacket);
  const StepResult packet = run_step(pod, mesh, program, *compute, options);
  EXPECT_FALSE(packet.symmetric);
  EXPECT_NE(packet.simulation.find("flow or the analytical"), std::string::npos)
      << packet.simulation;
  options.network = network_options(pod, net::Model::kFlow);
  options.stragglers.emplace_back(5, compute.get());
  options.fold_replicas = false;
  const StepResult straggler = run_step(pod, mesh, program, *compute, options);
  EXPECT_FALSE(straggler.symmetric);
  EXPECT_NE(straggler.simulation.find("straggler"), std::string::npos) << straggler.simulation;
  // Folded, the straggler's replica is played chip by chip and the healthy
  // one that stands for the rest one chip per class (engine/fold.h): the
  // same step (tests/engine/fold_test.cc compares every figure).
  options.fold_replicas = true;
  const StepResult folded = run_step(pod, mesh, program, *compute, options);
  EXPECT_TRUE(folded.symmetric);
  EXPECT_NE(folded.simulation.find(" within "), std::string::npos) << folded.simulation;
  EXPECT_EQ(folded.step_time, straggler.step_time);
  EXPECT_EQ(folded.critical_chip, straggler.critical_chip);
}

}  // namespace symmetry_test
}  // namespace podsim::engine
