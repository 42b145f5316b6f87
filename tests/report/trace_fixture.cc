#include "trace_fixture.h"

#include <sstream>

#include "specs.h"

namespace podsim::report::testing {

config::PodSpec pod_spec(const std::vector<DimSpec>& dims) {
  std::vector<podsim::testing::TorusDim> torus;
  for (const DimSpec& d : dims) {
    torus.push_back({d.name, d.size, d.wraparound});
  }
  config::PodSpec s = podsim::testing::v5e_torus(torus);
  s.name = "trace-test";
  return s;
}

workload::Instruction compute(std::string name, int32_t layer, workload::OpClass c, chip::Op op,
                              std::vector<uint32_t> deps) {
  workload::Instruction i;
  i.name = std::move(name);
  i.layer = layer;
  i.op_class = c;
  i.body = op;
  i.deps = std::move(deps);
  return i;
}

workload::Instruction all_reduce(std::string name, int32_t layer, std::string axis, uint64_t bytes,
                                 std::vector<uint32_t> deps) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kAllReduce;
  c.bytes = bytes;
  c.axes = {std::move(axis)};
  workload::Instruction i;
  i.name = std::move(name);
  i.layer = layer;
  i.op_class = workload::OpClass::kCollective;
  i.body = c;
  i.deps = std::move(deps);
  return i;
}

workload::Instruction stage_send(std::string name, uint64_t bytes, std::vector<uint32_t> deps) {
  workload::Instruction i;
  i.name = std::move(name);
  i.op_class = workload::OpClass::kStageTransfer;
  i.body = workload::StageTransfer{+1, bytes};
  i.deps = std::move(deps);
  return i;
}

chip::Op big_matmul() {
  return chip::Matmul{1, 4096, 4096, 4096};
}

chip::Op memory_bound_op() {
  return chip::Elementwise{1u << 20, 1, 1u << 28, 1u << 28};
}

workload::Program two_stage_program() {
  using workload::OpClass;
  constexpr uint64_t kMiB = 1024 * 1024;
  workload::Program p;
  p.pipeline_axis = "stage";
  p.stages.resize(2);
  auto& s0 = p.stages[0].instructions;
  s0.push_back(compute("L0.mlp.up", 0, OpClass::kFfn, big_matmul()));
  s0.push_back(all_reduce("L0.allreduce", 0, "model", 64 * kMiB, {0}));
  s0.push_back(compute("L0.scale", 0, OpClass::kElementwise, memory_bound_op()));
  s0.push_back(compute("L0.mlp.down", 0, OpClass::kFfn, big_matmul(), {1}));
  s0.push_back(stage_send("stage.send", 8 * kMiB, {3}));
  auto& s1 = p.stages[1].instructions;
  s1.push_back(compute("L1.mlp.up", 1, OpClass::kFfn, big_matmul()));
  s1.back().recv_from = 4;
  s1.push_back(all_reduce("L1.allreduce", 1, "model", 64 * kMiB, {0}));
  s1.push_back(compute("L1.mlp.down", 1, OpClass::kFfn, big_matmul(), {1}));
  return p;
}

StepFixture::StepFixture(const std::vector<DimSpec>& dims, std::vector<topo::MeshAxisSpec> axes)
    : pod(pod_spec(dims)),
      mesh(pod, std::move(axes)),
      model(chip::make_compute_model(chip::ComputeModelKind::kRoofline, pod.spec().chip, {})) {}

StepFixture StepFixture::pipeline_pod() {
  return StepFixture({{"x", 2, false}, {"y", 4, true}}, {{"stage", {0}}, {"model", {1}}});
}

engine::StepResult StepFixture::run(const workload::Program& p, bool fold) const {
  engine::StepOptions o;
  o.fold_replicas = fold;
  return engine::run_step(pod, mesh, p, *model, o);
}

std::string StepFixture::trace(const workload::Program& p, const engine::StepResult& r,
                               const TraceChipChoice& chips, const std::string& unit_layer) const {
  RunInputs run;
  run.topology = pod.spec().name;
  run.workload = "trace-test";
  run.network = "flow";
  std::ostringstream out;
  render_step_trace({pod, mesh, p, *model, r, run, unit_layer, nullptr}, chips, out);
  return out.str();
}

}  // namespace podsim::report::testing
