#include "topo/shape.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace podsim::topo {

Shape::Shape(std::vector<uint32_t> dim_sizes, uint32_t slices)
    : sizes_(std::move(dim_sizes)), slices_(slices) {
  if (slices_ == 0)
    throw std::invalid_argument("pod shape: slice count is 0");
  // Keep the last 32-bit id free for the DCN fabric vertex.
  constexpr uint64_t kMaxChips = std::numeric_limits<uint32_t>::max() - 1;
  uint64_t per_slice = 1;
  strides_.reserve(sizes_.size());
  for (size_t d = 0; d < sizes_.size(); ++d) {
    if (sizes_[d] == 0) {
      throw std::invalid_argument("pod shape: dimension " + std::to_string(d) + " has size 0");
    }
    strides_.push_back(static_cast<uint32_t>(per_slice));
    per_slice *= sizes_[d];
    if (per_slice * slices_ > kMaxChips) {
      throw std::invalid_argument("pod shape: more chips than 32-bit chip ids can number");
    }
  }
  if (per_slice * slices_ > kMaxChips) {
    throw std::invalid_argument("pod shape: more chips than 32-bit chip ids can number");
  }
  per_slice_ = static_cast<uint32_t>(per_slice);
}

std::vector<uint32_t> Shape::coords(ChipId chip) const {
  std::vector<uint32_t> out(sizes_.size());
  uint32_t local = chip % per_slice_;
  for (size_t d = 0; d < sizes_.size(); ++d) {
    out[d] = local % sizes_[d];
    local /= sizes_[d];
  }
  return out;
}

ChipId Shape::chip_at(uint32_t slice, std::span<const uint32_t> coords) const {
  if (slice >= slices_) {
    throw std::out_of_range("chip_at: slice " + std::to_string(slice) + " of " +
                            std::to_string(slices_));
  }
  if (coords.size() != sizes_.size()) {
    throw std::out_of_range("chip_at: " + std::to_string(coords.size()) +
                            " coordinates for a torus of " + std::to_string(sizes_.size()) +
                            " dimensions");
  }
  ChipId chip = slice * per_slice_;
  for (size_t d = 0; d < sizes_.size(); ++d) {
    if (coords[d] >= sizes_[d]) {
      throw std::out_of_range("chip_at: coordinate " + std::to_string(coords[d]) +
                              " outside dimension " + std::to_string(d) + " of size " +
                              std::to_string(sizes_[d]));
    }
    chip += coords[d] * strides_[d];
  }
  return chip;
}

}  // namespace podsim::topo
