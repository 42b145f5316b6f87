// A logical device mesh: named axes laid over the pod's torus dimensions, the
// way a JAX Mesh names the axes a program shards over. An axis may span several
// dimensions (and the slices, through kSliceDim); a collective over some axes
// involves, for each chip, the chips that differ from it only along those
// axes' dimensions. Dimensions no axis covers stay fixed, so they separate groups.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topo/pod.h"
#include "topo/shape.h"

namespace podsim::topo {

struct MeshAxisSpec {
  std::string name;
  // Torus dimensions (or kSliceDim) the axis spans; the first listed varies fastest.
  std::vector<uint32_t> dims;
};

// A value: it copies the pod's shape, so it does not refer to the Pod.
class DeviceMesh {
 public:
  // Throws std::invalid_argument when a name is empty or repeated, an axis has
  // no dimension, a dimension is out of range, or two axes share a dimension.
  DeviceMesh(const Pod& pod, std::vector<MeshAxisSpec> axes);

  std::span<const MeshAxisSpec> axes() const { return axes_; }
  // Chips along the axis: the product of its dimensions' sizes.
  uint32_t axis_size(std::string_view name) const;

  // The groups of a collective over `axes` (throws std::invalid_argument on an
  // unknown or repeated name). Each group lists its chips in ring order: the
  // dimensions of the axes, in the order given, first one fastest, walked as a
  // snake (boustrophedon), so consecutive members are physical neighbours on a
  // healthy torus (the last and first need not be); along one dimension that is
  // coordinate order. Groups come in increasing order of their first chip id.
  // O(chips x dims).
  std::vector<std::vector<ChipId>> groups(std::span<const std::string> axes) const;
  // The group containing `chip`, in the same order. O(group size x dims).
  std::vector<ChipId> group_of(ChipId chip, std::span<const std::string> axes) const;
  // Position of `chip` in group_of(chip, axes). O(dims).
  uint32_t index_in_group(ChipId chip, std::span<const std::string> axes) const;

 private:
  // The dimensions a collective over `axes` varies, fastest first.
  std::vector<uint32_t> group_dims(std::span<const std::string> axes) const;
  std::vector<ChipId> members(ChipId first, std::span<const uint32_t> dims) const;

  Shape shape_;
  std::vector<MeshAxisSpec> axes_;
};

}  // namespace podsim::topo
