// Whether a collective's routes exist: every two chips it joins can reach
// each other over live chips and working links (topo/components.h). Checked
// once per distinct collective before a run's first event, so a pod cut
// apart by dead chips or failed links is refused up front (as bad input)
// instead of failing mid-run on the first transfer across the cut; a cut
// the workload never crosses does not matter.
#pragma once

#include <string_view>

#include "config/workload_spec.h"
#include "topo/components.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll {

// Throws topo::Partitioned naming `needed_by`, the chips and the components
// when a group of `c` over `mesh` (or a SEND's pair) is cut apart. A chip
// outside the pod throws std::out_of_range (the loader checks pairs).
// O(chips x dims) for a collective over axes (mesh groups), O(pairs x dims)
// for a SEND; nothing to do when `parts` is connected and has no dead chip
// in the groups.
void require_reachable(const topo::Pod& pod, const topo::Components& parts,
                       const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
                       std::string_view needed_by);

}  // namespace podsim::coll
