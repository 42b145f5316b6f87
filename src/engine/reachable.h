// Before a run's first event: every route the workload needs exists. Dead
// chips and failed links may cut a pod's live chips apart; a workload whose
// collectives, sends or pipeline stage transfers join chips across the cut
// is refused here (topo::Partitioned, naming the operation, the chips and
// the components) rather than failing on its first transfer across it. A
// cut the workload never crosses does not matter. The components are found
// once per call (one BFS, O(chips + links)) and each distinct collective's
// groups looked up in them (O(chips) each); a pod with no link missing
// costs nothing.
#pragma once

#include "config/workload_spec.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::engine {

// An operation list: each collective operation.
void require_routes(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const config::WorkloadSpec& workload);

// A serving step: each distinct collective of every stage, and the
// pipeline's stage transfers (along the pipeline axis).
void require_routes(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                    const workload::Program& program);

}  // namespace podsim::engine
