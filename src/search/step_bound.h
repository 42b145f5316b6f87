// A lower bound on a serving step's time that needs no simulation: the
// program's critical path on the compute times the engine itself uses
// (engine/fusion.h's stage_timings on the same compute model), every
// collective and stage transfer taking its floor (comm_floor.h), or no
// time without one.
//
// Why it is a lower bound on the step time of every network model
// (analytical, flow, packet): the engine (engine/step.h) runs each chip's
// compute instructions in program order on one compute unit, each after its
// dependencies, for exactly its timing; collectives and stage transfers
// start once their dependencies are done and end no earlier than their
// floor after the first member starts (comm_floor.h says why), and a
// stage's first instruction on a micro-batch waits for the transfer that
// delivers it. The engine's start and end times therefore
// satisfy every constraint of this schedule with durations at least these,
// and the longest path through the constraints is the least solution: no
// instruction ends earlier here than in any simulation. All chips of a
// stage run one program with the same compute times (the search passes no
// stragglers), so one chip per stage stands for all.
//
// docs/search.md ("Bounds before estimates") says how the search uses it.
#pragma once

#include "chip/compute_model.h"
#include "search/comm_floor.h"
#include "sim/time.h"
#include "workload/program.h"

namespace podsim::search {

// The bound, in the engine's integer picoseconds (sums of the same
// durations, so an all-compute step gives exactly the simulated time).
// Zero when the program's constraints have a cycle (the engine would report
// it stuck): zero bounds every step. O(instructions + dependencies).
// With `comm`, each collective and stage transfer takes at least its floor
// (comm_floor.h) instead of no time.
sim::Time step_time_lower_bound(const workload::Program& program, const chip::ComputeModel& compute,
                                const CommFloor* comm = nullptr);

}  // namespace podsim::search
