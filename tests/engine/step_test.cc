// The step engine on hand-built programs, where the expected timeline can be
// drawn by hand from the closed forms of the parts.
#include "engine/step.h"

#include <gtest/gtest.h>

#include "chip/compute_model.h"
#include "sim/simulation.h"
#include "specs.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

config::PodSpec spec(const std::vector<std::pair<uint32_t, bool>>& dims) {
  const char* names[] = {"x", "y"};
  std::vector<podsim::testing::TorusDim> torus;
  for (size_t i = 0; i < dims.size(); ++i) {
    torus.push_back({names[i], dims[i].first, dims[i].second});
  }
  return podsim::testing::v5e_torus(torus);
}

topo::DeviceMesh mesh_of(const topo::Pod& pod) {
  std::vector<topo::MeshAxisSpec> axes;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    axes.push_back({pod.spec().torus.dims[d].name, {d}});
  }
  return topo::DeviceMesh(pod, axes);
}

workload::Instruction compute(std::string name, chip::Op op, std::vector<uint32_t> deps = {}) {
  workload::Instruction i;
  i.name = std::move(name);
  i.op_class = workload::OpClass::kFfn;
  i.body = op;
  i.deps = std::move(deps);
  return i;
}

workload::Instruction all_reduce(std::string name, uint64_t bytes, std::vector<uint32_t> deps) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kAllReduce;
  c.bytes = bytes;
  c.axes = {"x"};
  workload::Instruction i;
  i.name = std::move(name);
  i.op_class = workload::OpClass::kCollective;
  i.body = c;
  i.deps = std::move(deps);
  return i;
}

chip::Op big_matmul() {
  return chip::Matmul{1, 4096, 4096, 4096};
}

struct Fixture {
  topo::Pod pod;
  topo::DeviceMesh mesh;
  std::unique_ptr<chip::ComputeModel> model;
  explicit Fixture(std::vector<std::pair<uint32_t, bool>> dims)
      : pod(spec(std::move(dims))),
        mesh(mesh_of(pod)),
        model(chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {})) {}
  sim::Time t(const chip::Op& op) const { return model->time(op).time; }
  StepResult run(const workload::Program& p, bool fold = true) const {
    StepOptions o;
    o.fold_replicas = fold;
    return run_step(pod, mesh, p, *model, o);
  }
};

// All-reduce of V on a wraparound ring of 4 (bidirectional: 2 steps one way,
// 1 the other, chunks of V/4), reduce-scatter then all-gather.
// A balanced 4-ring all-reduce (docs/collectives.md): reduce-scatter and
// all-gather each take one step of both halves of a V/4 chunk on each link
// direction, then one of a single half (the opposite chip's).
sim::Time ring4_all_reduce(uint64_t v) {
  const sim::Bandwidth w = sim::Bandwidth::from_gbps(50);
  const sim::Time both = sim::transfer_time(v / 4, w) + sim::Time::us(1);
  const sim::Time half = sim::transfer_time(v / 8, w) + sim::Time::us(1);
  return (both + half) * 2;
}

TEST(Step, SerialComputeCollectiveCompute) {
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  ins.push_back(compute("a", big_matmul()));
  ins.push_back(all_reduce("ar", 64 * kMiB, {0}));
  ins.push_back(compute("b", big_matmul(), {1}));
  const StepResult r = f.run(p);
  const sim::Time expected = f.t(big_matmul()) * 2 + ring4_all_reduce(64 * kMiB);
  EXPECT_EQ(r.step_time, expected);
  EXPECT_EQ(r.critical.compute, f.t(big_matmul()) * 2);
  EXPECT_EQ(r.critical.collective_exposed, ring4_all_reduce(64 * kMiB));
  EXPECT_EQ(r.critical.idle, sim::Time::zero());
  EXPECT_EQ(r.critical.collective_overlapped, sim::Time::zero());
}

TEST(Step, IndependentCollectiveOverlapsCompute) {
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  ins.push_back(compute("a", big_matmul()));
  ins.push_back(all_reduce("ar", 64 * kMiB, {}));  // needs nothing: starts at 0
  ins.push_back(compute("b", big_matmul(), {1}));
  const StepResult r = f.run(p);
  const sim::Time ta = f.t(big_matmul());
  const sim::Time tc = ring4_all_reduce(64 * kMiB);
  EXPECT_EQ(r.step_time, std::max(ta, tc) + ta);
  EXPECT_EQ(r.critical.collective_overlapped, std::min(ta, tc));
  EXPECT_EQ(r.critical.collective_exposed, tc > ta ? tc - ta : sim::Time::zero());
  EXPECT_EQ(
      r.critical.compute + r.critical.memory + r.critical.collective_exposed + r.critical.idle,
      r.step_time);
}

TEST(Step, ComputeRunsInProgramOrder) {
  // b does not depend on a but still waits for the compute unit.
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions = {compute("a", big_matmul()), compute("b", big_matmul())};
  const StepResult r = f.run(p);
  EXPECT_EQ(r.step_time, f.t(big_matmul()) * 2);
  EXPECT_EQ(r.spans[0][1].start, f.t(big_matmul()));
}

TEST(Step, DependencyCycleIsNamed) {
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions = {compute("first", big_matmul(), {1}),
                              compute("second", big_matmul(), {0})};
  try {
    f.run(p);
    FAIL() << "a cycle must not finish";
  } catch (const StuckError& e) {
    EXPECT_NE(std::string(e.what()).find("first"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("second"), std::string::npos) << e.what();
  }
}

TEST(Step, FoldingReplicasIsExact) {
  // Collectives over x only: the 4 rows of a 4x4 torus are replicas.
  const Fixture f({{4, true}, {4, true}});
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  ins.push_back(compute("a", big_matmul()));
  ins.push_back(all_reduce("ar", 16 * kMiB, {0}));
  ins.push_back(compute("b", chip::Matmul{1, 8, 8192, 8192}, {1}));
  ins.push_back(all_reduce("ar2", 4 * kMiB, {2}));
  const StepResult folded = f.run(p, true);
  const StepResult full = f.run(p, false);
  EXPECT_EQ(folded.simulated_chips, 4U);
  EXPECT_EQ(full.simulated_chips, 16U);
  EXPECT_EQ(folded.represented_chips, 16U);
  EXPECT_EQ(folded.step_time, full.step_time);
  EXPECT_EQ(folded.critical.compute, full.critical.compute);
  EXPECT_EQ(folded.critical.memory, full.critical.memory);
  EXPECT_EQ(folded.critical.collective_exposed, full.critical.collective_exposed);
  EXPECT_EQ(full.min_chip_end, full.step_time);  // every replica ends together
}

TEST(Step, PipelineStagesHandActivationsOn) {
  // Two stages along y (a line of 2); stage 0 computes and sends, stage 1
  // receives and computes.
  const Fixture f({{4, true}, {2, false}});
  std::vector<topo::MeshAxisSpec> axes = {{"x", {0}}, {"stage", {1}}};
  const topo::DeviceMesh mesh(f.pod, axes);
  workload::Program p;
  p.pipeline_axis = "stage";
  p.stages.resize(2);
  workload::Instruction send;
  send.name = "send";
  send.op_class = workload::OpClass::kStageTransfer;
  send.body = workload::StageTransfer{+1, 8 * kMiB};
  send.deps = {0};
  p.stages[0].instructions = {compute("s0", big_matmul()), send};
  workload::Instruction first = compute("s1", big_matmul());
  first.recv_from = 1;
  p.stages[1].instructions = {first};
  StepOptions o;
  const StepResult r = run_step(f.pod, mesh, p, *f.model, o);
  const sim::Time hop =
      sim::transfer_time(8 * kMiB, sim::Bandwidth::from_gbps(50)) + sim::Time::us(1);
  EXPECT_EQ(r.step_time, f.t(big_matmul()) * 2 + hop);
  EXPECT_EQ(r.critical_stage, 1U);
  // Stage 1 waited for stage 0 and its transfer: idle, a pipeline bubble.
  EXPECT_EQ(r.critical.idle, f.t(big_matmul()) + hop);
}

TEST(Step, Deterministic) {
  const Fixture f({{4, true}, {4, true}});
  workload::Program p;
  p.stages.resize(1);
  p.stages[0].instructions = {compute("a", big_matmul()), all_reduce("ar", 16 * kMiB, {0})};
  EXPECT_EQ(f.run(p, false).fingerprint, f.run(p, false).fingerprint);
}

}  // namespace
}  // namespace podsim::engine

namespace podsim::engine {
namespace {

StepResult run_with(const Fixture& f, const workload::Program& p, net::Model model, bool lockstep) {
  StepOptions o;
  o.network.model = model;
  o.lockstep = lockstep;
  o.symmetry = false;  // lock step alone (symmetry_test.cc plays one chip per class)
  return run_step(f.pod, f.mesh, p, *f.model, o);
}

void expect_same_timeline(const StepResult& a, const StepResult& b) {
  EXPECT_EQ(a.step_time, b.step_time);
  EXPECT_TRUE(a.spans == b.spans);
  EXPECT_EQ(a.critical_chip, b.critical_chip);
  EXPECT_EQ(a.critical.collective_exposed, b.critical.collective_exposed);
}

// A ring all-reduce ends on every chip at once: chip 0 runs for all four,
// with a quarter of the compute events, and every chip's spans are the same
// as when each chip is played.
TEST(StepLockstep, SymmetricChipsRunOnce) {
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  ins.push_back(compute("a", big_matmul()));
  ins.push_back(all_reduce("ar", 64 * kMiB, {0}));
  ins.push_back(compute("b", big_matmul(), {1}));
  for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
    const StepResult played = run_with(f, p, model, false);
    const StepResult lockstep = run_with(f, p, model, true);
    expect_same_timeline(played, lockstep);
    EXPECT_LT(lockstep.events, played.events);
  }
}

// A broadcast ends on its root before the others: the chips do not run
// alike, lock step is dropped, and the step is played chip by chip (the same
// events as with lock step off).
TEST(StepLockstep, BroadcastBreaksLockstepAndIsPlayed) {
  const Fixture f({{4, true}});
  workload::Program p;
  p.stages.resize(1);
  auto& ins = p.stages[0].instructions;
  ins.push_back(compute("a", big_matmul()));
  workload::Instruction b = all_reduce("bcast", 64 * kMiB, {0});
  std::get<config::CollectiveSpec>(b.body).kind = config::CollectiveKind::kBroadcast;
  ins.push_back(std::move(b));
  ins.push_back(compute("b", big_matmul(), {1}));
  for (const net::Model model : {net::Model::kFlow, net::Model::kAnalytical}) {
    const StepResult played = run_with(f, p, model, false);
    const StepResult lockstep = run_with(f, p, model, true);
    expect_same_timeline(played, lockstep);
    EXPECT_NE(played.spans[0][1].end, played.spans[1][1].end);  // the root ends first
    EXPECT_EQ(lockstep.events, played.events);
  }
}

}  // namespace
}  // namespace podsim::engine
