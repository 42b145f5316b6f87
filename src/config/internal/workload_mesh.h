// A workload's device mesh checked against a pod: every axis' dimension names
// resolved to torus dimension indices (or kSliceDimIndex) and its size in chips.
//
// Internal to src/config: it reads the generated podsim::Mesh message. The
// validator uses it to check the mesh rules and then the collectives' sizes;
// the converter uses it to fill MeshAxisDecl.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/internal/issue_list.h"
#include "config/topology_spec.h"

namespace podsim {
class Mesh;
}  // namespace podsim

namespace podsim::config::internal {

struct ResolvedAxis {
  std::string name;
  std::vector<uint32_t> dims;  // torus dimension indices, or kSliceDimIndex
  uint64_t size = 1;           // chips along the axis: product of its dimensions' sizes
  // Every dimension resolved, none shared with an earlier axis, the name
  // non-empty and not taken by an earlier axis. Collectives over an axis that
  // is not valid skip the checks that need its size (its problem is reported).
  bool valid = true;
};

class ResolvedMesh {
 public:
  // Resolves `mesh` against `pod`, adding one issue per broken mesh rule
  // (docs/inputs.md) under `path`. O(axes x dims x torus dimensions).
  ResolvedMesh(const podsim::Mesh& mesh, const PodSpec& pod, const FieldPath& path,
               IssueList& issues);

  const std::vector<ResolvedAxis>& axes() const { return axes_; }

  // The first axis called `name`, or nullptr. O(axes).
  const ResolvedAxis* find(std::string_view name) const;

  // "x, y": the axis names in order (empty ones left out), for messages.
  std::string names() const;

 private:
  std::vector<ResolvedAxis> axes_;
};

// "x, y, z": the pod's torus dimension names, for messages.
std::string torus_dimension_names(const PodSpec& pod);

}  // namespace podsim::config::internal
