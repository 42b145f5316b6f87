// The rules of a SEND collective's chip pairs against the pod: at least one
// pair; each chip given by one coordinate per torus dimension, inside its
// dimension, and a slice the pod has; a pair's two chips differ; no pair
// listed twice (docs/inputs.md).
//
// Internal to src/config: it reads the generated podsim::Collective message.
#pragma once

#include "config/internal/issue_list.h"
#include "config/topology_spec.h"

namespace podsim {
class Collective;
}  // namespace podsim

namespace podsim::config::internal {

// Adds one issue per broken rule under `path` (the collective). O(pairs x
// (dims + log pairs)).
void validate_chip_pairs(const podsim::Collective& collective, const PodSpec& pod,
                         const FieldPath& path, IssueList& issues);

}  // namespace podsim::config::internal
