// Timelines of `podsim run` as Chrome trace-event JSON (`--trace FILE`), for
// ui.perfetto.dev and chrome://tracing. docs/outputs.md ("Traces") lists
// every track, name and argument.
//
// Serving step: a process per pipeline stage ("pod" without a pipeline); per
// traced chip a compute track "chip N (x,y,z)" (one slice per compute
// instruction: name = instruction, category = op class as the breakdown
// names it, args: layer, op class, bound, FLOPs, HBM bytes) and a track
// "chip N collectives" for its collectives and stage transfers, which
// overlap compute (extra tracks "... collectives 2" if they overlap each
// other). A process "network" has a track per mesh axis, busy whenever a
// collective (or, on the pipeline axis, a stage transfer) over that axis is
// in flight on any simulated chip. Arrows: stage transfers, from the
// sender's transfer to the receiver's instruction that waits for it; and on
// the critical chip, from each collective to the first compute it unblocks.
//
// With a unit layer (--trace-units), a last process "chip N units, layer
// L" shows the critical chip's units running that layer (trace_units.h).
//
// Operation list: a process "operations" with a track per operation (its
// whole span, and each run when repeated) and the "network" per-axis tracks.
#pragma once

#include <ostream>
#include <string>

#include "chip/compute_model.h"
#include "engine/op_list.h"
#include "engine/step.h"
#include "report/op_list_report.h"
#include "report/trace_chips.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::report {

// What a serving trace is drawn from: the run's inputs and its result. All
// must be those run_step() was given and returned.
struct StepTraceInputs {
  const topo::Pod& pod;
  const topo::DeviceMesh& mesh;
  const workload::Program& program;
  const chip::ComputeModel& compute;  // for each op's bound, FLOPs and bytes
  const engine::StepResult& step;
  RunInputs run;  // names for the trace's metadata
  // --trace-units: a breakdown layer key (L3, embed, head, other) whose
  // compute the critical chip's unit tracks show (trace_units.h); empty:
  // no unit tracks. The model the critical chip ran (a straggler's own),
  // null for `compute`.
  std::string unit_layer;
  const chip::ComputeModel* critical_compute = nullptr;
};

// Writes the trace of the chips in `chips` (choose_trace_chips()). O(traced
// instructions + simulated chips x collectives x log).
void render_step_trace(const StepTraceInputs& in, const TraceChipChoice& chips, std::ostream& out);

// Writes the trace of an operation-list run. O(operations x runs x log).
void render_op_list_trace(const RunInputs& run, const engine::OpListResult& result,
                          std::ostream& out);

}  // namespace podsim::report
