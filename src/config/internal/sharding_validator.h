// The rules a serving step's sharding satisfies against the workload's mesh
// and the pod: every axis it names exists, each axis has one role (tensor,
// expert, data or pipeline; an expert axis may also be a data axis), every
// chip of the pod is in the mesh and every mesh axis has a role, and no field
// is set that the rest of the sharding would ignore (docs/inputs.md lists
// them). The groups it resolves feed the shape rules (shape_validator.h).
//
// Internal to src/config: it reads the generated podsim::Workload message.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/internal/issue_list.h"
#include "config/internal/workload_mesh.h"
#include "config/topology_spec.h"

namespace podsim {
class Workload;
}  // namespace podsim

namespace podsim::config::internal {

// The chips one role spans: the product of its axes' sizes.
struct AxisGroup {
  explicit AxisGroup(std::string role_name) : role(std::move(role_name)) {}

  std::string role;                // "tensor", "expert", "data", "pipeline"
  std::vector<std::string> names;  // the axes, as listed
  std::vector<uint64_t> sizes;     // chips along each of them
  uint64_t chips = 1;              // their product; 1 when no axis is listed
  // Every axis listed exists, is itself valid and is listed once. Shape rules
  // skip a group that is not valid (its problem is reported).
  bool valid = true;

  // "the 16 chips of tensor axes [x, y]", for messages.
  std::string label() const;
  // The group of the i-th axis alone (2D layouts treat their axes apart).
  AxisGroup axis(size_t i) const;
  // The group of the axes that are not in `other`. O(axes x other's axes).
  AxisGroup without(const AxisGroup& other) const;
};

struct ShardingGroups {
  AxisGroup tensor{"tensor"};
  // Weight-gathered layouts: the tensor axes weights are gathered over
  // (sharding.weight_gathered_axes, or every tensor axis); empty otherwise.
  AxisGroup gathered{"weight-gathered"};
  AxisGroup expert{"expert"};
  AxisGroup data{"data"};
  AxisGroup pipeline{"pipeline"};
};

// Checks workload.sharding against `mesh` (resolved from workload.mesh on
// `pod`) and adds one issue per broken rule. Reads workload.model and
// workload.scenario for the rules that tie them to the sharding (expert axes
// need experts, micro-batches need a pipeline). O(axes x mesh axes + pod
// dimensions).
ShardingGroups validate_sharding(const podsim::Workload& workload, const ResolvedMesh& mesh,
                                 const PodSpec& pod, IssueList& issues);

}  // namespace podsim::config::internal
