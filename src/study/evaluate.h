// The study layer: one configuration (pod + workload + run options) in, one
// podsim.Result out. `podsim run` is option parsing, loading, evaluate() and
// printing; `podsim sweep` and `podsim search` call evaluate() for every
// point. Sits above engine and report, below cli.
//
// Thread safety: evaluate() keeps no globals and no shared mutable state
// (each call builds its own compute model, mesh, program and Simulation), so
// calls on different inputs may run on several threads at once; the inputs
// are only read, so they may even be shared between calls.
//
// Errors: a configuration that does not fit in HBM (without allow_oom) or
// whose serving step cannot be lowered (workload::ShapeError) is not an
// exception but a result whose status says so (oom / invalid, with a
// reason), nor is one that needs more simulated time than the clock holds or
// whose collectives join chips that dead chips or failed links cut apart
// (invalid, naming the cut). A run past RunOptions::limits throws sim::WorkLimitExceeded;
// what else throws is a bug (std::logic_error from the engine).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chip/compute_model.h"
#include "config/diagnostics.h"
#include "config/op_table_spec.h"
#include "config/pricing_spec.h"
#include "config/workload_spec.h"
#include "engine/op_list.h"
#include "engine/serving_summary.h"
#include "engine/step.h"
#include "net/network.h"
#include "podsim/result.pb.h"
#include "sim/time.h"
#include "sim/work_budget.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"
#include "workload/program_cache.h"

namespace podsim::study {

// How a whole generation's decode steps are simulated (study/generation.h).
struct GenerationOptions {
  bool every_step = false;  // simulate each decode step, interpolate none
  // Relative bound on the error of a linear prediction at a midpoint below
  // which the decode steps between two simulated ones are interpolated.
  double tolerance = 1e-3;
};

struct RunOptions {
  // Model, packet size and switching; the pod's calibration supplies the
  // ICI and DCN efficiencies (engine::network_options).
  net::Options network;
  chip::ComputeModelKind compute = chip::ComputeModelKind::kRoofline;
  std::optional<config::OpTableSpec> op_table;  // measured times, for kTable
  std::string op_table_file;                    // its path, echoed in the result
  bool allow_oom = false;  // simulate a step that does not fit (memory.fits false)
  bool fold = true;        // fold replicas (exact; false simulates every chip)
  // Play one chip per class where the pod and the collectives are the same
  // from every chip of the class (engine/symmetry.h; exact).
  bool symmetry = true;
  bool link_stats = false;  // fill Result.link_stats (large on big pods)
  // On a pod with faults, also run on the same pod with every fault repaired
  // and report the slowdown (healthy_step_time_us, fault_slowdown).
  bool vs_healthy = false;
  // Work done and total, from the simulating thread: instructions of a
  // serving step (engine::StepOptions::progress), runs of an operation list
  // (engine::OpListOptions::progress). Optional.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Called once before the simulation starts with a lower bound on the
  // events it will execute (study/work_estimate.h; for an operation list,
  // counted from the lowered collectives), so a caller can warn before a
  // long run. Optional.
  std::function<void(uint64_t min_events)> on_estimate;
  // Limits on the run's work (sim/work_budget.h): a run past one throws
  // sim::WorkLimitExceeded out of evaluate() and gives no result. The run's
  // work is estimated first (study/work_estimate.h), so a run whose lower
  // bound already passes a limit is refused before it starts.
  sim::WorkLimits limits = sim::kDefaultWorkLimits;
  // Lowered programs shared by the calls given the same cache (a sweep's
  // points); optional. Results are the same with or without it.
  std::shared_ptr<workload::ProgramCache> programs;
  GenerationOptions generation;  // scenarios of phase GENERATION only
  // --pricing: the result's cost (serving.cost; docs/energy.md). A chip the
  // file has no price for at its commitment makes the result invalid.
  std::shared_ptr<const config::PricingSpec> pricing;
};

// A serving step as the engine ran it, for traces and the terminal table.
struct ServingRun {
  topo::DeviceMesh mesh;
  std::shared_ptr<const workload::Program> program;  // never null
  std::unique_ptr<chip::ComputeModel> compute;
  // The stragglers' models (study/faults.h), which the step ran with, and
  // each straggler chip's (pointing into straggler_compute).
  std::vector<std::unique_ptr<chip::ComputeModel>> straggler_compute;
  std::vector<std::pair<topo::ChipId, const chip::ComputeModel*>> straggler_by_chip;
  engine::StepResult step;  // empty when the step was not simulated (oom)
  engine::ServingSummary summary;

  // The model `chip` ran with: its straggler model, or `compute`.
  const chip::ComputeModel& model_of(topo::ChipId chip) const {
    for (const auto& [c, model] : straggler_by_chip) {
      if (c == chip)
        return *model;
    }
    return *compute;
  }
};

struct Evaluation {
  podsim::Result result;
  // Set when status is invalid: the diagnostics the reason was made from.
  std::optional<config::InputError> error;
  // Set for a serving workload that was lowered (ok, or oom with summary only).
  // For a generation: its last decode step (the prefill when output_len is
  // 1), or the step that did not fit.
  std::unique_ptr<ServingRun> serving;
  // Set for an operation-list workload.
  std::optional<engine::OpListResult> op_list;
};

// Runs `workload` on `pod` with `options` and keeps what the engine
// returned beside the result.
Evaluation evaluate_in_detail(const topo::Pod& pod, const config::WorkloadSpec& workload,
                              const RunOptions& options);

// The result alone: evaluate_in_detail(...).result.
podsim::Result evaluate(const topo::Pod& pod, const config::WorkloadSpec& workload,
                        const RunOptions& options);

// What is known about a run whose inputs could not be loaded.
struct KnownInputs {
  const config::PodSpec* pod = nullptr;            // when the topology loaded
  const config::WorkloadSpec* workload = nullptr;  // when the workload loaded too
  std::string topology_file;                       // as named on the command line
  std::string workload_file;
  const RunOptions* options = nullptr;
  // Every --set given ("path=value"), recorded under the topology's and the
  // workload's overrides by root when that input did not load.
  std::vector<std::string> overrides;
};

// The result for inputs that could not be loaded: status invalid, reason the
// diagnostics (one per line, as the error message gives them), and whatever
// inputs are known.
podsim::Result invalid_result(const config::InputError& error, const KnownInputs& known);

// Why a run that overflowed the clock is refused (exit 2, not a bug): the
// bound `podsim run` states, shared by `podsim serve` and `podsim capacity`.
std::string clock_overflow_reason(const sim::TimeOverflow& e);

// The run options part of the inputs (network, compute, flags).
void fill_run_options(const RunOptions& options, podsim::RunOptions& out);

}  // namespace podsim::study
