// Test helpers: PodSpec values for N-d tori built in code, and an independent
// reference model of the same graph (coordinates, neighbours, BFS distances)
// written without the library, so tests compare against it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/topology_spec.h"
#include "topo/pod.h"

namespace podsim::topo::testing {

struct Dim {
  uint32_t size = 1;
  bool wrap = false;
};

// 1D, 2D and 3D shapes, with and without wraparound, and the number of
// directed links each has, counted by hand: a ring of n has 2n directed links,
// a line of n has 2(n-1); a dimension contributes that times the number of
// rings or lines along it.
struct ShapeCase {
  std::string label;
  std::vector<Dim> dims;
  uint64_t directed_links = 0;
};
const std::vector<ShapeCase>& standard_shapes();

// An N-d torus, one slice, `link_gbps` one-way links and 1 us hops.
config::PodSpec torus_spec(const std::vector<Dim>& dims, double link_gbps = 50.0);

// A route is a walk: it leaves src, each link starts where the last one
// ended, and it ends at dst (gtest assertions).
void expect_walk(const Pod& pod, ChipId src, ChipId dst, const std::vector<LinkId>& path);
// The same spec replicated into `slices` slices joined by a DCN.
config::PodSpec with_slices(config::PodSpec spec, uint32_t slices, double dcn_gbps_per_chip);
config::PodSpec with_failed_link(config::PodSpec spec, std::vector<uint32_t> coords, uint32_t dim,
                                 int direction, uint32_t slice = 0);

// The reference model. Chip ids are slice * chips_per_slice + sum coord[d] *
// prod_{e<d} size[e] (dimension 0 fastest), as the library documents.
class ReferenceTorus {
 public:
  explicit ReferenceTorus(const config::PodSpec& spec);

  uint32_t chip_count() const { return per_slice_ * slices_; }
  uint32_t chips_per_slice() const { return per_slice_; }
  uint32_t id(uint32_t slice, const std::vector<uint32_t>& coords) const;
  std::vector<uint32_t> coords(uint32_t chip) const;
  uint32_t slice(uint32_t chip) const { return chip / per_slice_; }

  // The chip across the ICI link (dim, direction), or -1 when there is none.
  int64_t neighbour(uint32_t chip, uint32_t dim, int direction) const;
  // Hop distances within the chip's slice; -1 when unreachable.
  std::vector<int64_t> distances_from(uint32_t chip) const;
  // Brute force: BFS from every chip of every slice; -1 when a slice is cut.
  int64_t diameter() const;

 private:
  int64_t wired_neighbour(uint32_t chip, uint32_t dim, int direction) const;
  bool failed(uint32_t chip, uint32_t dim, int direction) const;

  config::PodSpec spec_;
  uint32_t per_slice_ = 1;
  uint32_t slices_ = 1;
};

}  // namespace podsim::topo::testing
