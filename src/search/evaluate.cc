#include "search/evaluate.h"

#include <limits>
#include <memory>

#include "chip/compute_model.h"
#include "engine/energy.h"
#include "engine/model_caveats.h"
#include "engine/op_list.h"
#include "engine/reachable.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "engine/workload_mesh.h"
#include "search/step_bound.h"
#include "topo/components.h"
#include "workload/program.h"

namespace podsim::search {
namespace {

// The lowered step and its memory verdict; `program` is left for simulate().
Evaluation lower_and_check(const topo::Pod& pod, const config::WorkloadSpec& workload,
                           const topo::DeviceMesh& mesh, workload::Program& program) {
  Evaluation e;
  try {
    program = workload::lower(*workload.serving, engine::mesh_axes(mesh));
  } catch (const workload::ShapeError& err) {
    e.status = Status::kInvalid;
    e.reason = err.field() + ": " + err.what();
    return e;
  }
  try {
    engine::require_routes(pod, mesh, program);
  } catch (const topo::Partitioned& err) {
    // Dead chips or failed links cut the chips this sharding joins apart.
    e.status = Status::kInvalid;
    e.reason = err.what();
    return e;
  }
  const engine::ServingSummary memory = engine::summarize_serving(
      engine::StepResult{}, program, pod.spec(), workload.serving->scenario);
  e.hbm_used_bytes = memory.hbm_used_bytes;
  if (!memory.fits) {
    e.status = Status::kOom;
    e.reason = "needs " + std::to_string(memory.hbm_used_bytes) + " bytes of HBM per chip, has " +
               std::to_string(memory.hbm_capacity_bytes);
    return e;
  }
  e.status = Status::kOk;
  return e;
}

// podsim run's default compute model on the pod: the roofline with the
// pod's calibration.
std::unique_ptr<chip::ComputeModel> default_compute(const config::PodSpec& spec) {
  return chip::make_compute_model(chip::ComputeModelKind::kRoofline, spec.chip,
                                  chip::efficiency_of(spec.calibration), nullptr);
}

}  // namespace

const char* to_string(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kInvalid:
      return "invalid";
    case Status::kOom:
      return "oom";
  }
  return "?";
}

Evaluation check(const topo::Pod& pod, const config::WorkloadSpec& workload) {
  const topo::DeviceMesh mesh = engine::workload_mesh(pod, workload);
  workload::Program program;
  Evaluation e = lower_and_check(pod, workload, mesh, program);
  if (e.status != Status::kOk)
    return e;
  engine::StepResult bound;
  const CommFloor comm(pod, mesh);
  bound.step_time = step_time_lower_bound(program, *default_compute(pod.spec()), &comm);
  const engine::ServingSummary s =
      engine::summarize_serving(bound, program, pod.spec(), workload.serving->scenario);
  e.bound_latency_us = s.step_time_us;
  // A zero bound (no compute at all) bounds the throughput by nothing.
  e.bound_tokens_per_s_per_chip = bound.step_time > sim::Time::zero()
                                      ? s.tokens_per_s_per_chip
                                      : std::numeric_limits<double>::infinity();
  e.out_of_step = !engine::out_of_step_collectives(pod, workload, program).empty();
  return e;
}

Evaluation simulate(const topo::Pod& pod, const config::WorkloadSpec& workload, net::Model network,
                    const sim::WorkLimits& limits) {
  const topo::DeviceMesh mesh = engine::workload_mesh(pod, workload);
  workload::Program program;
  Evaluation e = lower_and_check(pod, workload, mesh, program);
  if (e.status != Status::kOk)
    return e;
  const config::PodSpec& spec = pod.spec();
  const auto compute = default_compute(spec);
  sim::WorkBudget budget(limits);
  engine::StepOptions options;
  options.network = engine::network_options(pod, network);
  options.budget = &budget;
  const engine::StepResult step = engine::run_step(pod, mesh, program, *compute, options);
  const engine::ServingSummary s =
      engine::summarize_serving(step, program, spec, workload.serving->scenario);
  e.step_time_us = s.step_time_us;
  e.latency_us = s.step_time_us;
  e.tokens_per_s_per_chip = s.tokens_per_s_per_chip;
  e.mfu = s.mfu;
  const engine::StepEnergy energy = engine::step_energy(pod, spec.chip.power, step);
  if (energy.modelled && step.step_time.count_ps() > 0 && s.tokens > 0) {
    const double j = static_cast<double>(energy.parts.total()) * 1e-12;
    e.energy_modelled = true;
    e.j_per_token = j / static_cast<double>(s.tokens);
    e.tokens_per_j = static_cast<double>(s.tokens) / j;
    e.mean_power_w =
        static_cast<double>(energy.parts.total()) / static_cast<double>(step.step_time.count_ps());
  }
  return e;
}

}  // namespace podsim::search
