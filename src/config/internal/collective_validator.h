// The rules one collective must satisfy against a workload's mesh: kind and
// enums set to known values, a non-empty list of distinct mesh axes, a buffer
// that divides evenly over the group, root and shift inside the group, and no
// field the kind would ignore; for SEND, no axes and valid chip pairs
// (docs/inputs.md lists them).
//
// Internal to src/config: it reads the generated podsim::Collective message.
#pragma once

#include "config/internal/issue_list.h"
#include "config/internal/workload_mesh.h"
#include "config/topology_spec.h"

namespace podsim {
class Collective;
}  // namespace podsim

namespace podsim::config::internal {

// Adds one issue per broken rule, under `path`. O(axes listed x mesh axes).
void validate_collective(const podsim::Collective& collective, const ResolvedMesh& mesh,
                         const PodSpec& pod, const FieldPath& path, IssueList& issues);

}  // namespace podsim::config::internal
