// Where a network model is known to part from the others on a workload, so
// that a run can say so rather than answer with confidence.
//
// The analytical model books each link first come, first served between
// instants. It matches max-min (flow) and round-robin (packet) where the
// transfers that meet on a link start at one instant: every all-to-all and
// permute; every all-gather, reduce-scatter and all-reduce whose torus
// dimensions are alike (the same size, all wrapped or all lines; a DCN
// phase after them keeps step); every broadcast on the ICI alone. Over torus
// dimensions that differ, a ring collective runs its shares' phases in
// rotated order, phases of unequal length put the shares out of step, and
// one share's transfer then waits at a link for another's where flow and
// packet share it; a broadcast's pipelined chains do the same when a DCN
// stage joins ICI stages. Measured on random cases: 0.75x to 1.22x flow
// (tests/engine/model_agreement_random_test.cc, which holds this split to
// the bounds; docs/architecture.md, "The network models").
#pragma once

#include <string>
#include <vector>

#include "config/workload_spec.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {

// The workload's collectives that can fall out of step on the pod, each
// named for a message: an operation list's by name and axes, a serving
// step's (lowered here; workload::lower's errors propagate) by kind and
// axes. Empty when every collective stays in step. The workload must be
// one the loader took for this pod.
std::vector<std::string> out_of_step_collectives(const topo::Pod& pod,
                                                 const config::WorkloadSpec& workload);
// The same for a serving step already lowered (`program`, workload::lower of
// workload.serving on the pod's mesh).
std::vector<std::string> out_of_step_collectives(const topo::Pod& pod,
                                                 const config::WorkloadSpec& workload,
                                                 const workload::Program& program);

}  // namespace podsim::engine
