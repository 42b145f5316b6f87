// The rules of a topology's faults beside failed links: dead chips, degraded
// links and stragglers (docs/inputs.md, "Faults"). Each names an existing
// chip or link; factors are in [0.001, 1] and must slow something; no chip
// or physical link carries two faults of a kind, and none sits on a dead
// chip or a failed link, where it would mean nothing.
#pragma once

#include "config/internal/field_path.h"
#include "config/internal/issue_list.h"

namespace podsim {
class Topology;
}  // namespace podsim

namespace podsim::config::internal {

// Records every broken rule under `root`.
void check_faults(IssueList& issues, const FieldPath& root, const podsim::Topology& t);

}  // namespace podsim::config::internal
