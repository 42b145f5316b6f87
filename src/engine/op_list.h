// The engine for the first workload form: a list of operations on the device
// mesh, each started when the operations it names in `after` have finished,
// and run `repeat` times back to back.
//
// Collectives are lowered by coll::lower() and played by coll::CollectiveRun
// on the chosen network model; a pod's calibration adds its fixed cost per
// collective before each run. Results are per operation: time per run,
// algorithm and bus bandwidth (the NCCL-tests convention) and link
// utilisation.
//
// Compute operations run SPMD: every chip runs the same op at the same time,
// for the compute model's time for it (the same on every chip, so one
// timeline stands for all). A chip has one compute unit: compute operations
// take it one at a time, each for all its runs back to back. When the unit
// is free it takes the ready operation (every dependency done) that comes
// first in the file; operations that become ready at the same instant are
// all considered. Collectives never wait for the unit: they run alongside
// compute, as on a TPU whose ICI DMA engines work beside the TensorCore.
// Loops (WorkloadSpec::loops, from an imported HLO while) play a range of
// operations several times, each iteration after the previous one
// (engine/op_list_loops.h); an operation in a loop reports every run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "chip/compute_model.h"
#include "config/workload_spec.h"
#include "engine/progress.h"
#include "net/network.h"
#include "sim/time.h"
#include "sim/work_budget.h"
#include "topo/pod.h"

namespace podsim::engine {

// One run of an operation: from its start (the pod's collective overhead
// comes first) to the end of its collective.
struct RunSpan {
  sim::Time start;
  sim::Time end;
};

// What a compute operation did, per run.
struct ComputeResult {
  config::ComputeOp op;
  // The compute model's answer for one run: time, FLOPs, HBM bytes, bound,
  // achieved FLOP/s.
  chip::OpTiming timing;
};

// The fields from `kind` to `transfers` describe a collective; a compute
// operation leaves them at their defaults and sets `compute` instead.
struct OperationResult {
  std::string name;
  std::string op_name;  // OperationSpec::op_name
  config::CollectiveKind kind = config::CollectiveKind::kAllReduce;
  uint64_t bytes = 0;             // V, as the workload gives it
  std::vector<std::string> axes;  // empty for a send
  uint32_t group_size = 1;
  // How the collective ran (coll::Plan::schedule): "x ring + y ring (2
  // shares)", "direct exchange ...", "1 pair over 2 routes", ...
  std::string schedule;
  uint32_t repeat = 1;
  sim::Time start;        // first run began
  sim::Time end;          // last run ended
  sim::Time per_run;      // (end - start) / repeat
  double algbw_gbps = 0;  // V / per_run
  double busbw_gbps = 0;  // algbw x bus factor
  // Over the links this operation used: bytes / (effective bandwidth x the
  // operation's duration), mean and max.
  double link_util_mean = 0;
  double link_util_max = 0;
  uint32_t links_used = 0;
  uint64_t transfers = 0;
  // Each run, in order (for traces).
  std::vector<RunSpan> runs;
  std::optional<ComputeResult> compute;  // set for a compute operation

  bool is_compute() const { return compute.has_value(); }
};

struct OpListResult {
  std::vector<OperationResult> operations;
  sim::Time makespan;
  uint64_t events = 0;
  uint64_t fingerprint = 0;   // of the event stream: equal inputs, equal value
  net::LinkStats link_stats;  // bytes and busy time per LinkId over the whole run
  // How the run was played (engine/symmetry.h): one chip per class, or every
  // chip; the classes or why not; how many chips' parts were played.
  bool symmetric = false;
  std::string simulation;
  uint32_t played_chips = 0;
};

struct OpListOptions {
  // Charged by the run's simulation (sim/work_budget.h); optional.
  sim::WorkBudget* budget = nullptr;
  // Called as operation runs (one per repeat) complete, with the number done
  // and the total (the sum of the repeats): every kProgressInterval
  // completions and once at the end. For progress reports only. Optional.
  ProgressFn progress;
  // Called once, after every collective is lowered and before the first
  // event, with a lower bound on the events the run will execute: one per
  // run of a compute operation, coll::min_transfers per run of a collective.
  // A caller may refuse the run here by throwing (study/evaluate.cc checks
  // its work limits). Optional.
  std::function<void(uint64_t min_events)> before_start;
  // Play one chip per class where the pod and every collective allow it
  // (engine/symmetry.h); the result is the same either way.
  bool symmetry = true;
};

// Runs every operation of `workload` on `pod`, compute operations on
// `compute` (which must be built for the pod's chip). Throws
// std::logic_error when the simulation ends with work left (an engine bug:
// dependencies are checked acyclic by the loader) naming the operations that
// never finished; topo::Partitioned, before the first event, when a
// collective joins chips that dead chips or failed links cut apart
// (engine/reachable.h).
OpListResult run_op_list(const topo::Pod& pod, const config::WorkloadSpec& workload,
                         const net::Options& network, const chip::ComputeModel& compute,
                         const OpListOptions& options = {});

// The pod's calibration knobs as network options for `model`.
net::Options network_options(const topo::Pod& pod, net::Model model);

}  // namespace podsim::engine
