#include "config/internal/workload_mesh.h"

#include <map>
#include <optional>

#include "config/workload_spec.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

std::optional<uint32_t> dimension_index(const PodSpec& pod, const std::string& name) {
  if (name == kSliceDimName)
    return kSliceDimIndex;
  for (size_t i = 0; i < pod.torus.dims.size(); ++i) {
    if (pod.torus.dims[i].name == name)
      return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

uint64_t dimension_size(const PodSpec& pod, uint32_t index) {
  return index == kSliceDimIndex ? pod.slices : pod.torus.dims[index].size;
}

// How messages name an axis: mesh.axes[1] ("y").
std::string axis_label(const MeshAxis& axis, int index) {
  return "mesh.axes[" + std::to_string(index) + "] (\"" + axis.name() + "\")";
}

}  // namespace

ResolvedMesh::ResolvedMesh(const Mesh& mesh, const PodSpec& pod, const FieldPath& path,
                           IssueList& issues) {
  if (mesh.axes_size() == 0) {
    issues.add(path("axes"), "must list at least one axis");
    return;
  }
  std::map<std::string, int> axis_named;      // name -> first axis index
  std::map<uint32_t, int> axis_of_dimension;  // dimension index -> axis index
  for (int i = 0; i < mesh.axes_size(); ++i) {
    const MeshAxis& in = mesh.axes(i);
    const FieldPath at = path("axes", i);
    ResolvedAxis& axis = axes_.emplace_back();
    axis.name = in.name();
    if (in.name().empty()) {
      issues.add(at("name"), "must not be empty");
      axis.valid = false;
    } else if (const auto [it, inserted] = axis_named.emplace(in.name(), i); !inserted) {
      issues.add(at("name"), "axis name \"" + in.name() + "\" is already used by mesh.axes[" +
                                 std::to_string(it->second) + "]");
      axis.valid = false;
    }
    if (in.dims_size() == 0) {
      issues.add(at("dims"), "must list at least one dimension");
      axis.valid = false;
    }
    for (int j = 0; j < in.dims_size(); ++j) {
      const std::string& name = in.dims(j);
      const std::optional<uint32_t> index = dimension_index(pod, name);
      if (!index) {
        issues.add(at("dims", j), "unknown dimension \"" + name + "\": the topology '" + pod.name +
                                      "' has dimensions " + torus_dimension_names(pod) +
                                      ", and \"slice\" for its " + std::to_string(pod.slices) +
                                      (pod.slices == 1 ? " slice" : " slices"));
        axis.valid = false;
        continue;
      }
      if (*index == kSliceDimIndex && in.dims_size() > 1) {
        issues.add(at("dims", j),
                   "\"slice\" must be the only dimension of its axis (slices are joined by the "
                   "data-center network, not laid out along a torus dimension)");
        axis.valid = false;
      }
      if (const auto [it, inserted] = axis_of_dimension.emplace(*index, i); !inserted) {
        issues.add(at("dims", j),
                   "dimension \"" + name + "\" is already used by " +
                       (it->second == i ? std::string("this axis")
                                        : axis_label(mesh.axes(it->second), it->second)) +
                       "; a dimension belongs to at most one axis");
        axis.valid = false;
        continue;
      }
      axis.dims.push_back(*index);
      axis.size *= dimension_size(pod, *index);
    }
  }
}

const ResolvedAxis* ResolvedMesh::find(std::string_view name) const {
  for (const ResolvedAxis& axis : axes_) {
    if (axis.name == name)
      return &axis;
  }
  return nullptr;
}

std::string ResolvedMesh::names() const {
  std::vector<std::string> names;
  for (const ResolvedAxis& axis : axes_) {
    if (!axis.name.empty())
      names.push_back(axis.name);
  }
  return join(names);
}

std::string torus_dimension_names(const PodSpec& pod) {
  std::vector<std::string> names;
  for (const DimensionSpec& d : pod.torus.dims)
    names.push_back(d.name);
  return join(names);
}

}  // namespace podsim::config::internal
