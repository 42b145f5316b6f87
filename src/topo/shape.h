// The numbering of chips in a pod: chip id <-> (slice, coordinates).
//
// chip = slice * chips_per_slice() + sum_d coord[d] * stride(d), with stride(0) = 1:
// dimension 0 varies fastest (x, then y, then z, as TPU device ids do), and the
// slice slowest. Every accessor that takes a dimension also accepts kSliceDim,
// the slice index seen as one more (outermost) dimension; DeviceMesh relies on it.
// All accessors are O(1) except coords() and chip_at(), which are O(dims).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topo/link.h"

namespace podsim::topo {

class Shape {
 public:
  // Throws std::invalid_argument when a size or the slice count is zero, or the
  // pod has too many chips for 32-bit ids (one id is kept for the DCN vertex).
  Shape(std::vector<uint32_t> dim_sizes, uint32_t slices);

  uint32_t dim_count() const { return static_cast<uint32_t>(sizes_.size()); }
  uint32_t slice_count() const { return slices_; }
  uint32_t chips_per_slice() const { return per_slice_; }
  uint32_t chip_count() const { return per_slice_ * slices_; }

  // Size and stride of torus dimension `dim`, or of the slices for kSliceDim.
  uint32_t dim_size(uint32_t dim) const { return dim == kSliceDim ? slices_ : sizes_[dim]; }
  uint32_t stride(uint32_t dim) const { return dim == kSliceDim ? per_slice_ : strides_[dim]; }
  // Coordinate of `chip` along `dim` (its slice for kSliceDim).
  uint32_t coord(ChipId chip, uint32_t dim) const {
    if (dim == kSliceDim)
      return chip / per_slice_;
    return chip % per_slice_ / strides_[dim] % sizes_[dim];
  }
  uint32_t slice_of(ChipId chip) const { return chip / per_slice_; }

  // Torus coordinates of `chip` within its slice, one per dimension.
  std::vector<uint32_t> coords(ChipId chip) const;
  // Inverse of (slice_of, coords). Throws std::out_of_range on a bad slice,
  // a wrong number of coordinates or a coordinate outside its dimension.
  ChipId chip_at(uint32_t slice, std::span<const uint32_t> coords) const;

 private:
  std::vector<uint32_t> sizes_;
  std::vector<uint32_t> strides_;
  uint32_t slices_ = 1;
  uint32_t per_slice_ = 1;
};

}  // namespace podsim::topo
