// The engine for serving steps: plays a workload::Program on every chip of
// the pod, on one event kernel, with the chosen compute and network models.
//
// Each chip runs its stage's program: compute instructions in program order
// on its one compute unit, each also waiting for its dependencies;
// collectives and stage transfers start as soon as their dependencies are
// done and run alongside compute. A collective instance is shared by every
// chip of the stage (coll::CollectiveRun); a chip continues past it as soon as
// its own part is done.
//
// Replica folding (engine/fold.h). Chips that differ only in coordinates no
// collective and no stage transfer ever spans (data-parallel replicas, and
// torus dimensions the mesh leaves out) run identical programs on disjoint
// links; on a torus that is the same along those dimensions their timelines
// are identical by symmetry. The engine then simulates one replica and
// reports it for all; on a pod with faults, also every replica a fault
// reaches, chip by chip. This is exact (tests compare folded and full runs);
// `fold_replicas = false` simulates every chip.
//
// When the simulation ends with work left (a dependency cycle, a collective
// some chip never joins) run_step() throws StuckError naming the stuck
// instructions instead of hanging. A step whose collectives or stage
// transfers join chips that dead chips or failed links cut apart is refused
// before its first event (topo::Partitioned, engine/reachable.h).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "chip/compute_model.h"
#include "engine/progress.h"
#include "net/network.h"
#include "sim/time.h"
#include "sim/work_budget.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {

class StuckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StepOptions {
  net::Options network;
  bool fold_replicas = true;
  // On the analytical network, a collective that starts on idle links with
  // every participant at one instant is laid down from a recording of its
  // first such run instead of played transfer by transfer (coll/replay.h).
  // The result is the same either way: when other traffic turns out to share
  // a replayed collective's links, the step is played again without
  // replaying. Only the event count differs. Ignored on the other networks.
  bool replay_collectives = true;
  // A one-stage program whose chips all run it alike (the same compute times,
  // every collective finishing all of them at once: a tensor-parallel group
  // on a uniform torus) is simulated on its first chip only, that chip
  // joining each collective for all of them, and the others are given its
  // spans. The first collective that finishes its chips at different times
  // shows they do not run alike; the step is then played chip by chip. The
  // result is the same either way; only the event count differs.
  bool lockstep = true;
  // Play one chip per class where the pod and every collective allow it
  // (engine/symmetry.h): no straggler, the flow or analytical network (a
  // symmetric analytical run records and replays its collectives over the
  // classes: see replay_collectives); with pipeline stages, translations
  // only along the dimensions the pipeline axis leaves out. The result is
  // the same either way; only the event count differs.
  bool symmetry = true;
  // Called as instructions complete, with the number done and the total over
  // the simulated chips: every kProgressInterval completions and once at
  // the end. For progress reports only; it must not touch the simulation.
  ProgressFn progress;
  // Charged by the step's simulation (sim/work_budget.h); optional.
  sim::WorkBudget* budget = nullptr;
  // Chips slower than the rest (topology stragglers), each with the compute
  // model of its slowed chip; their compute instructions take that model's
  // times. Turns lock step off (their chips do not run alike). Not owned.
  std::vector<std::pair<topo::ChipId, const chip::ComputeModel*>> stragglers;
};

// One instruction's time on one chip.
struct Span {
  sim::Time start;
  sim::Time end;
  friend bool operator==(const Span&, const Span&) = default;
};

// Where one chip's time went, in the sense of the breakdown: every instant of
// [0, end] is exactly one of compute-bound, memory-bound, exposed collective
// or idle; collective time under compute is counted again as overlapped.
// `units` splits compute + memory by the chip's units (chip::UnitTimes):
// units.total() == compute + memory exactly.
struct ChipBreakdown {
  sim::Time end;
  sim::Time compute;
  sim::Time memory;
  sim::Time collective_exposed;
  sim::Time idle;
  sim::Time collective_overlapped;
  chip::UnitTimes units;
  // The work of its compute-bound and memory-bound instructions (overhead-
  // bound ones count as compute-bound), for the energy (engine/energy.h).
  chip::WorkDone compute_work;
  chip::WorkDone memory_work;
  friend bool operator==(const ChipBreakdown&, const ChipBreakdown&) = default;
};

struct GroupTime {
  std::string key;  // a layer ("L12", "embed", "head") or an op class
  sim::Time compute;
  sim::Time memory;
  sim::Time collective_exposed;
  sim::Time collective_overlapped;
  chip::UnitTimes units;  // units.total() == compute + memory
};

struct StepResult {
  sim::Time step_time;  // the last chip's end
  topo::ChipId critical_chip = 0;
  uint32_t critical_stage = 0;
  ChipBreakdown critical;           // the critical chip's breakdown
  std::vector<GroupTime> by_layer;  // critical chip, in program order of first appearance
  std::vector<GroupTime> by_op_class;
  // Spread over simulated chips.
  sim::Time min_chip_end;
  sim::Time mean_chip_end;
  uint32_t simulated_chips = 0;
  uint32_t represented_chips = 0;  // chips the simulated ones stand for
  // For each chip of the pod, the simulated chip whose timeline it has
  // (itself when simulated; engine/fold.h); empty when every chip was
  // simulated. On a pod with faults the simulated replicas stand for
  // different numbers of chips.
  std::vector<topo::ChipId> represented_by;
  // Per-chip totals of the critical chip.
  double hbm_bytes = 0;  // HBM bytes its compute moved
  double flops = 0;      // FLOPs its compute did (padding excluded)
  // Elementwise instructions of its stage run inside their matmul's
  // epilogue (engine/fusion.h; --compute tensorcore), per chip.
  uint32_t fused_epilogues = 0;
  uint64_t events = 0;
  uint64_t fingerprint = 0;
  // How the step was played (engine/symmetry.h): one chip per class, or
  // every chip; the classes or why not; how many chips ran their programs
  // (1 in lock step; each class's representative in a symmetric run).
  bool symmetric = false;
  std::string simulation;
  uint32_t played_chips = 0;
  // Bytes and busy time per LinkId over the step, simulated chips' traffic
  // only (engine/link_usage.h unfolds replicas).
  net::LinkStats link_stats;
  // Spans of every simulated chip: spans[i][k] for simulated chip i
  // (chips[i]) and instruction k of its stage's program.
  std::vector<topo::ChipId> chips;
  std::vector<uint32_t> chip_stage;
  std::vector<ChipBreakdown> chip_breakdowns;  // chip_breakdowns[i] for chips[i], to its own end
  std::vector<std::vector<Span>> spans;
};

StepResult run_step(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const workload::Program& program, const chip::ComputeModel& compute,
                    const StepOptions& options);

}  // namespace podsim::engine
