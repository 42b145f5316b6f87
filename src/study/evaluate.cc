#include "study/evaluate.h"

#include <algorithm>

#include "engine/energy.h"
#include "engine/symmetry.h"
#include "engine/workload_mesh.h"
#include "report/link_report.h"
#include "report/result_energy.h"
#include "report/result_inputs.h"
#include "report/result_outputs.h"
#include "sim/time.h"
#include "study/collective_matmul.h"
#include "study/faults.h"
#include "study/generation.h"
#include "study/prefill_chunks.h"
#include "study/pricing.h"
#include "study/work_estimate.h"
#include "topo/components.h"

namespace podsim::study {
namespace {

std::unique_ptr<chip::ComputeModel> make_compute(const RunOptions& options, const topo::Pod& pod,
                                                 const config::ChipSpec& chip) {
  return chip::make_compute_model(options.compute, chip,
                                  chip::efficiency_of(pod.spec().calibration),
                                  options.op_table ? &*options.op_table : nullptr);
}

std::unique_ptr<chip::ComputeModel> make_compute(const RunOptions& options, const topo::Pod& pod) {
  return make_compute(options, pod, pod.spec().chip);
}

StragglerModels stragglers_of(const RunOptions& options, const topo::Pod& pod) {
  return straggler_models(
      pod, [&](const config::ChipSpec& chip) { return make_compute(options, pod, chip); });
}

// Measured tables time the chip as it is: a slowed chip has no table.
std::optional<config::InputError> straggler_conflict(const topo::Pod& pod,
                                                     const RunOptions& options) {
  if (pod.spec().stragglers.empty() || options.compute != chip::ComputeModelKind::kTable)
    return std::nullopt;
  return config::InputError(config::Diagnostic{
      pod.spec().source_file, "stragglers", 0, 0,
      "the table compute model has measured times for the chip as it is, not for a slowed "
      "one; run stragglers with --compute roofline or systolic"});
}

// The TensorCore model tiles operations into VMEM: a chip without a VMEM
// figure cannot run it.
std::optional<config::InputError> compute_conflict(const topo::Pod& pod,
                                                   const config::WorkloadSpec& workload,
                                                   const RunOptions& options) {
  const config::ChipSpec& chip = pod.spec().chip;
  if (options.compute != chip::ComputeModelKind::kTensorCore) {
    if (workload.serving &&
        workload.serving->sharding.attention_mapping != config::AttentionMapping::kAuto) {
      // Built with += (GCC 12 warns falsely on a chain of +: -Wrestrict).
      std::string message = "forces how --compute tensorcore maps attention onto the units (";
      message += config::to_string(workload.serving->sharding.attention_mapping);
      message += "); the ";
      message += chip::to_string(options.compute);
      message += " model has one fixed mapping: run with --compute tensorcore, or leave it AUTO";
      return config::InputError(
          config::Diagnostic{workload.source_file, "sharding.attention_mapping", 0, 0, message});
    }
    return std::nullopt;
  }
  if (chip.vmem_bytes == 0) {
    return config::InputError(
        config::Diagnostic{pod.spec().source_file, "chip.vmem_bytes", 0, 0,
                           "--compute tensorcore tiles every operation into VMEM, and the chip '" +
                               chip.name + "' has none (vmem_bytes 0: unknown); give its VMEM"});
  }
  // A core must hold at least its smallest blocks (one MXU-wide matmul
  // block double-buffered, a few DMA granules): 1 MiB, a sixteenth of the
  // smallest published TensorCore VMEM (16 MiB on v4, JAX tpu_info).
  constexpr uint64_t kMinCoreVmem = 1ull << 20;
  if (chip.vmem_bytes / chip.tensor_core.cores < kMinCoreVmem) {
    return config::InputError(config::Diagnostic{
        pod.spec().source_file, "chip.vmem_bytes", 0, 0,
        "--compute tensorcore needs at least 1 MiB of VMEM per TensorCore to tile into, got " +
            std::to_string(chip.vmem_bytes) + " bytes over " +
            std::to_string(chip.tensor_core.cores) + " cores"});
  }
  return std::nullopt;
}

// The network options with the pod's calibrated efficiencies.
net::Options calibrated(const topo::Pod& pod, const RunOptions& options) {
  net::Options n = options.network;
  const net::Options c = engine::network_options(pod, options.network.model);
  n.ici_efficiency = c.ici_efficiency;
  n.dcn_efficiency = c.dcn_efficiency;
  return n;
}

std::string reason_of(const config::InputError& e) {
  return e.what();
}

std::string oom_reason(const config::WorkloadSpec& workload, const engine::ServingSummary& s) {
  return "'" + workload.name + "' does not fit in HBM: " + std::to_string(s.hbm_used_bytes) +
         " bytes per chip needed (weights " + std::to_string(s.memory.weight_bytes) +
         ", KV cache " + std::to_string(s.memory.kv_cache_bytes) + ", activations " +
         std::to_string(s.memory.activation_peak_bytes) + "), " +
         std::to_string(s.hbm_capacity_bytes) + " available";
}

void evaluate_serving(const topo::Pod& pod, const config::WorkloadSpec& workload,
                      const RunOptions& options, Evaluation& ev) {
  const config::ServingSpec& serving = *workload.serving;
  podsim::ServingResult& out = *ev.result.mutable_serving();
  out.mutable_memory();
  out.mutable_spread();
  topo::DeviceMesh mesh = engine::workload_mesh(pod, workload);
  const workload::MeshAxes axes = engine::mesh_axes(mesh);
  const Lowering lower = [&](const config::ServingSpec& s) {
    return options.programs ? options.programs->lower(s, axes)
                            : std::make_shared<const workload::Program>(workload::lower(s, axes));
  };
  std::shared_ptr<const workload::Program> program;
  config::ServingSpec lowered = serving;  // with the prefill chunks chosen
  try {
    program = lower(serving);
    if (program->memory_per_chip.total() > pod.spec().chip.hbm_bytes) {
      const uint64_t replicas = axes.product(serving.sharding.data_axes);
      if (auto chunked =
              fit_prefill_chunks(serving, *program, replicas, pod.spec().chip.hbm_bytes, lower)) {
        program = std::move(chunked->program);
        lowered = std::move(chunked->serving);
      }
    }
  } catch (const workload::ShapeError& e) {
    ev.error =
        config::InputError(config::Diagnostic{workload.source_file, e.field(), 0, 0, e.what()});
    ev.result.set_status(podsim::Result::invalid);
    ev.result.set_reason(reason_of(*ev.error));
    return;
  }
  auto run = std::make_unique<ServingRun>(
      ServingRun{std::move(mesh), std::move(program), make_compute(options, pod), {}, {}, {}, {}});
  run->summary = engine::summarize_serving(run->step, *run->program, pod.spec(), serving.scenario);
  if (!run->summary.fits && !options.allow_oom) {
    report::fill_serving_memory(run->summary, out);
    ev.result.set_status(podsim::Result::oom);
    ev.result.set_reason(oom_reason(workload, run->summary));
    ev.serving = std::move(run);
    return;
  }
  StragglerModels stragglers = stragglers_of(options, pod);
  run->straggler_compute = std::move(stragglers.owned);
  run->straggler_by_chip = stragglers.by_chip;
  const net::Options network = calibrated(pod, options);
  sim::WorkBudget budget(options.limits);
  const WorkEstimate estimate = estimate_step(*run->program);
  budget.check_estimate(estimate.events, estimate.memory_bytes);
  if (options.on_estimate) {
    options.on_estimate(estimate.events);
  }
  engine::StepOptions step_options;
  step_options.network = network;
  step_options.fold_replicas = options.fold;
  step_options.symmetry = options.symmetry;
  step_options.progress = options.progress;
  step_options.budget = &budget;
  step_options.stragglers = stragglers.by_chip;
  const SimulateFn simulate = [&](const workload::Program& p) {
    return engine::run_step(pod, run->mesh, p, *run->compute, step_options);
  };
  run->step = simulate(*run->program);
  // Looping changes no shape the plain step did not lower: no ShapeError here.
  bool auto_on = false;
  if (auto looped = faster_with_collective_matmul(lowered, run->step, lower, simulate)) {
    run->program = std::move(looped->program);
    run->step = std::move(looped->step);
    auto_on = true;
  }
  run->summary = engine::summarize_serving(run->step, *run->program, pod.spec(), serving.scenario);
  run->summary.attention_mapping = engine::attention_mapping(*run->program, *run->compute);
  run->summary.power = pod.spec().chip.power;
  run->summary.energy = engine::step_energy(pod, run->summary.power, run->step);
  if (serving.sharding.collective_matmul == config::CollectiveMatmul::kAuto)
    run->summary.collective_matmul = auto_on ? "auto: on" : "auto: off";
  report::fill_serving_result(run->step, run->summary, out);
  if (options.pricing)
    price_step(pod.spec(), *options.pricing, run->summary, out);
  report::fill_simulation(run->step.symmetric, run->step.simulation, run->step.played_chips,
                          *ev.result.mutable_simulation());
  if (options.link_stats) {
    report::fill_link_stats(
        report::make_link_report(pod, run->step.link_stats, run->step.represented_by, network,
                                 run->step.step_time),
        *ev.result.mutable_link_stats());
  }
  ev.serving = std::move(run);
}

void evaluate_op_list(const topo::Pod& pod, const config::WorkloadSpec& workload,
                      const RunOptions& options, Evaluation& ev) {
  const net::Options network = calibrated(pod, options);
  const auto base = make_compute(options, pod);
  const StragglerModels stragglers = stragglers_of(options, pod);
  std::vector<const chip::ComputeModel*> slower;
  for (const auto& [chip, model] : stragglers.by_chip)
    slower.push_back(model);
  const SlowestChipModel slowest(*base, std::move(slower));
  const chip::ComputeModel* compute = &slowest;
  sim::WorkBudget budget(options.limits);
  WorkEstimate estimate = estimate_op_list(workload, engine::workload_mesh(pod, workload), network);
  if (options.symmetry && !engine::why_never_symmetric(pod, network)) {
    // A symmetric run may play one chip for the whole pod: before the
    // collectives are lowered, only one chip's share of the bound holds.
    // Once they are, the engine counts the transfers it will play
    // (before_start below), a bound for either way of playing.
    estimate.events = std::max<uint64_t>(1, estimate.events / pod.chip_count());
  }
  budget.check_estimate(estimate.events, estimate.memory_bytes);
  engine::OpListOptions run_options;
  run_options.symmetry = options.symmetry;
  run_options.budget = &budget;
  run_options.progress = options.progress;
  // Once the collectives are lowered their transfers are known: a tighter
  // bound than the one above, checked before the first event.
  run_options.before_start = [&](uint64_t min_events) {
    budget.check_estimate(std::max(min_events, estimate.events), estimate.memory_bytes);
    if (options.on_estimate) {
      options.on_estimate(std::max(min_events, estimate.events));
    }
  };
  ev.op_list = engine::run_op_list(pod, workload, network, *compute, run_options);
  report::fill_op_list_result(*ev.op_list, *ev.result.mutable_op_list());
  report::fill_energy(engine::op_list_energy(pod, pod.spec().chip.power, *ev.op_list),
                      pod.spec().chip.power, ev.op_list->makespan, 0,
                      *ev.result.mutable_op_list()->mutable_energy());
  report::fill_simulation(ev.op_list->symmetric, ev.op_list->simulation, ev.op_list->played_chips,
                          *ev.result.mutable_simulation());
  if (options.link_stats) {
    report::fill_link_stats(
        report::make_link_report(pod, ev.op_list->link_stats, {}, network, ev.op_list->makespan),
        *ev.result.mutable_link_stats());
  }
}

}  // namespace

void fill_run_options(const RunOptions& options, podsim::RunOptions& out) {
  out.set_network(std::string(net::to_string(options.network.model)));
  out.set_packet_bytes(options.network.packet_bytes);
  out.set_switching(std::string(net::to_string(options.network.switching)));
  out.set_compute(std::string(chip::to_string(options.compute)));
  out.set_op_table(options.op_table_file);
  out.set_fold(options.fold);
  out.set_symmetry(options.symmetry);
  out.set_allow_oom(options.allow_oom);
  out.set_vs_healthy(options.vs_healthy);
  out.set_every_step(options.generation.every_step);
  out.set_step_tolerance(options.generation.tolerance);
}

namespace {

// --vs-healthy: the same workload and options on the pod with every fault
// repaired; the slowdown is the faulty time over the healthy one.
void compare_with_healthy(const topo::Pod& pod, const config::WorkloadSpec& workload,
                          const RunOptions& options, podsim::Result& result) {
  const topo::Pod healthy(pod.spec().without_faults());
  RunOptions plain = options;
  plain.vs_healthy = false;
  plain.link_stats = false;
  plain.progress = nullptr;
  const podsim::Result h = evaluate(healthy, workload, plain);
  if (h.status() != podsim::Result::ok)
    return;
  if (result.has_serving() && h.serving().step_time_us() > 0) {
    podsim::ServingResult& s = *result.mutable_serving();
    s.set_healthy_step_time_us(h.serving().step_time_us());
    s.set_fault_slowdown(s.step_time_us() / h.serving().step_time_us());
  } else if (result.has_op_list() && h.op_list().makespan_us() > 0) {
    podsim::OpListResult& o = *result.mutable_op_list();
    o.set_healthy_makespan_us(h.op_list().makespan_us());
    o.set_fault_slowdown(o.makespan_us() / h.op_list().makespan_us());
  }
}

// The pod's fault fields, for a diagnostic about a cut.
std::string fault_fields(const config::PodSpec& pod) {
  if (pod.dead_chips.empty())
    return "failed_links";
  return pod.failed_links.empty() ? "dead_chips" : "dead_chips, failed_links";
}

// Turns `ev` into an invalid result for `why`: the inputs kept, whatever
// the run filled in dropped.
void refuse(Evaluation& ev, config::Diagnostic why) {
  podsim::Result inputs_only = std::move(ev.result);
  ev = Evaluation{};
  ev.result = std::move(inputs_only);
  ev.result.clear_serving();
  ev.result.clear_op_list();
  ev.result.clear_link_stats();
  ev.result.clear_generation();
  ev.error = config::InputError(std::move(why));
  ev.result.set_status(podsim::Result::invalid);
  ev.result.set_reason(reason_of(*ev.error));
}

}  // namespace

std::string clock_overflow_reason(const sim::TimeOverflow& e) {
  return std::string(
             "the run needs more simulated time than podsim's clock holds (2^63 ps, about 106 "
             "days): ") +
         e.what();
}

Evaluation evaluate_in_detail(const topo::Pod& pod, const config::WorkloadSpec& workload,
                              const RunOptions& options) {
  Evaluation ev;
  ev.result = report::new_result();
  podsim::Inputs& in = *ev.result.mutable_inputs();
  report::fill_topology_inputs(pod.spec(), *in.mutable_topology());
  report::fill_workload_inputs(workload, pod.spec(), in);
  fill_run_options(options, *in.mutable_run());
  auto conflict = straggler_conflict(pod, options);
  if (!conflict)
    conflict = compute_conflict(pod, workload, options);
  if (!conflict && options.pricing)
    conflict = pricing_conflict(pod.spec(), *options.pricing);
  if (conflict) {
    ev.error = std::move(conflict);
    ev.result.set_status(podsim::Result::invalid);
    ev.result.set_reason(reason_of(*ev.error));
    return ev;
  }
  try {
    if (workload.serving && workload.serving->scenario.is_generation()) {
      evaluate_generation(pod, workload, options, ev);
    } else if (workload.serving) {
      evaluate_serving(pod, workload, options, ev);
    } else {
      evaluate_op_list(pod, workload, options, ev);
    }
    if (options.vs_healthy && pod.has_faults() && ev.result.status() == podsim::Result::ok)
      compare_with_healthy(pod, workload, options, ev.result);
  } catch (const sim::TimeOverflow& e) {
    // Inputs within every limit can still ask for more simulated time than
    // the clock holds (a 2^56-byte collective over a 1 MB/s link): refused,
    // as bad input, with whatever was filled in dropped.
    refuse(ev,
           config::Diagnostic{workload.source_file, workload.serving ? "scenario" : "operations", 0,
                              0, clock_overflow_reason(e)});
  } catch (const topo::Partitioned& e) {
    // Dead chips or failed links cut apart chips the workload joins: the
    // pod cannot run it, found before the first event (engine/reachable.h).
    refuse(ev, config::Diagnostic{pod.spec().source_file, fault_fields(pod.spec()), 0, 0,
                                  std::string(e.what()) + " (workload '" + workload.name + "')"});
  }
  return ev;
}

podsim::Result evaluate(const topo::Pod& pod, const config::WorkloadSpec& workload,
                        const RunOptions& options) {
  return evaluate_in_detail(pod, workload, options).result;
}

}  // namespace podsim::study
