#include "topo/mesh.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace podsim::topo {
namespace {

std::string dim_label(uint32_t dim) {
  return dim == kSliceDim ? std::string("the slice dimension") : "dimension " + std::to_string(dim);
}

}  // namespace

DeviceMesh::DeviceMesh(const Pod& pod, std::vector<MeshAxisSpec> axes)
    : shape_(pod.shape()), axes_(std::move(axes)) {
  std::vector<std::string_view> names;
  std::vector<uint32_t> used;
  for (const auto& axis : axes_) {
    const std::string where = "mesh axis '" + axis.name + "': ";
    if (axis.name.empty())
      throw std::invalid_argument("mesh axis with an empty name");
    if (std::find(names.begin(), names.end(), axis.name) != names.end()) {
      throw std::invalid_argument(where + "name used twice");
    }
    names.push_back(axis.name);
    if (axis.dims.empty())
      throw std::invalid_argument(where + "spans no dimension");
    for (const uint32_t dim : axis.dims) {
      if (dim != kSliceDim && dim >= shape_.dim_count()) {
        throw std::invalid_argument(where + dim_label(dim) + " does not exist (the torus has " +
                                    std::to_string(shape_.dim_count()) + ")");
      }
      if (std::find(used.begin(), used.end(), dim) != used.end()) {
        throw std::invalid_argument(where + dim_label(dim) + " already belongs to an axis");
      }
      used.push_back(dim);
    }
  }
}

uint32_t DeviceMesh::axis_size(std::string_view name) const {
  const std::string axis(name);
  const std::vector<uint32_t> dims = group_dims(std::span<const std::string>(&axis, 1));
  uint32_t size = 1;
  for (const uint32_t dim : dims)
    size *= shape_.dim_size(dim);
  return size;
}

std::vector<uint32_t> DeviceMesh::group_dims(std::span<const std::string> axes) const {
  std::vector<uint32_t> dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (std::find(axes.begin(), axes.begin() + static_cast<std::ptrdiff_t>(i), axes[i]) !=
        axes.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("mesh axis '" + axes[i] + "' named twice in one collective");
    }
    const auto it = std::find_if(axes_.begin(), axes_.end(),
                                 [&](const MeshAxisSpec& a) { return a.name == axes[i]; });
    if (it == axes_.end())
      throw std::invalid_argument("unknown mesh axis '" + axes[i] + "'");
    dims.insert(dims.end(), it->dims.begin(), it->dims.end());
  }
  return dims;
}

// Member i of the group is the i-th position of a boustrophedon walk over
// `dims` (first fastest): a reflected mixed-radix Gray code, in which digit k
// runs backwards while the number of completed sweeps of digit k is odd, so
// positions i and i+1 differ by one step along exactly one dimension.
std::vector<ChipId> DeviceMesh::members(ChipId first, std::span<const uint32_t> dims) const {
  uint32_t count = 1;
  for (const uint32_t dim : dims)
    count *= shape_.dim_size(dim);
  std::vector<ChipId> out;
  out.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    ChipId chip = first;
    uint32_t q = i;
    for (const uint32_t dim : dims) {
      const uint32_t size = shape_.dim_size(dim);
      const uint32_t digit = q % size;
      q /= size;  // completed sweeps of this digit
      chip += (q % 2 == 1 ? size - 1 - digit : digit) * shape_.stride(dim);
    }
    out.push_back(chip);
  }
  return out;
}

std::vector<std::vector<ChipId>> DeviceMesh::groups(std::span<const std::string> axes) const {
  const std::vector<uint32_t> dims = group_dims(axes);
  std::vector<std::vector<ChipId>> out;
  for (ChipId chip = 0; chip < shape_.chip_count(); ++chip) {
    const bool first = std::all_of(dims.begin(), dims.end(),
                                   [&](uint32_t dim) { return shape_.coord(chip, dim) == 0; });
    if (first)
      out.push_back(members(chip, dims));
  }
  return out;
}

std::vector<ChipId> DeviceMesh::group_of(ChipId chip, std::span<const std::string> axes) const {
  const std::vector<uint32_t> dims = group_dims(axes);
  ChipId first = chip;
  for (const uint32_t dim : dims)
    first -= shape_.coord(chip, dim) * shape_.stride(dim);
  return members(first, dims);
}

uint32_t DeviceMesh::index_in_group(ChipId chip, std::span<const std::string> axes) const {
  // Inverse of members(): undo the reflections from the slowest digit down.
  const std::vector<uint32_t> dims = group_dims(axes);
  uint32_t q = 0;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    const uint32_t size = shape_.dim_size(*it);
    const uint32_t c = shape_.coord(chip, *it);
    q = q * size + (q % 2 == 1 ? size - 1 - c : c);
  }
  return q;
}

}  // namespace podsim::topo
