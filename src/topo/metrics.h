// Pod-level figures for `podsim topo` and for sanity checks: diameter,
// per-chip and per-axis ICI bandwidth, bisection bandwidth. All bandwidths are
// the published one-way link figures summed; calibration does not enter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/time.h"
#include "topo/pod.h"

namespace podsim::topo {

// The largest fewest-hops ICI distance between two live chips of one slice,
// over all slices (DCN links are not used); nullopt when dead chips or failed
// links cut a slice's live chips apart (topo/components.h names the parts).
// Fewest hops is what the routes take: dimension order where it meets no
// fault, a shortest route around one otherwise (topo/routing.h). Plain tori use the closed form
// sum_d (wraparound ? size/2 : size-1), O(dims). A twisted torus whose dimensions all wrap is
// vertex-transitive when no twist shifts along a dimension that is itself twisted (it is then a
// quotient of Z^n by a lattice, so every chip sees the same graph): one BFS,
// O(chips). Slices with failed links or dead chips, and other twisted shapes,
// take a BFS from every live chip of the slice: O(chips x links) — seconds on a full v5p pod.
std::optional<uint32_t> diameter_hops(const Pod& pod);

// ICI bandwidth of one chip, in and out over all its ICI links: Google's
// "per chip, both ways, all ports" figure (v5e: 4 links x 50 GB/s x 2 = 400 GB/s).
struct ChipIciBandwidth {
  sim::Bandwidth typical;  // the most common value over chips (the larger on a tie)
  sim::Bandwidth min;
  sim::Bandwidth max;
};
ChipIciBandwidth chip_ici_bandwidth(const Pod& pod);  // O(links)

// One torus axis as a collective over it sees it.
struct AxisBandwidth {
  uint32_t dim = 0;
  std::string name;
  uint32_t size = 1;
  bool wraparound = false;
  sim::Bandwidth link;  // one direction of one link
  // Out of one chip along the axis, both directions: 2 x link on a ring or
  // inside a line (W in the collective cost formulas), 1 x link on a line of
  // 2 chips, 0 on an axis of size 1. Failed links are not deducted.
  sim::Bandwidth per_chip;
};
std::vector<AxisBandwidth> axis_bandwidths(const Pod& pod);  // one per dimension, O(dims)

// The worst balanced cut. For every dimension d of size >= 2 the chips with
// coord_d < size_d/2 (in every slice) form side A; on a pod with faults
// (failed or degraded links, dead chips) each wrapped dimension's half cut
// is also tried at every rotation, (coord_d - offset) mod size_d < size_d/2,
// since a fault off the middle makes a rotated cut the worst; the cut's capacity is the
// sum over the graph's directed links from A to B (one direction of every link
// cut, as Google quotes bisection bandwidth; twists and failed links count as
// they are). With several slices, the first slices/2 slices against the rest
// is a candidate too, with capacity min(DCN up links of A, DCN down links of B).
// The smallest capacity wins; ties go to the lower dimension, then to the
// torus over the slice cut, then to the smaller offset. O(links x dims),
// O(links x sum of dimension sizes) with faults.
// On a twisted torus a twisted wrap link moves along its shift dimensions, so
// it crosses their half cuts too: shifting a k x k x 2k or k x 2k x 2k
// slice's short wraps by k along the long axes doubles every long-axis cut,
// and the short-axis cuts become the bisection (twice the plain torus's).
// Tests check that no balanced cut {s . coords mod N < N/2} (the cuts that
// follow the twisted lattice) is smaller on such slices.
struct BisectionCut {
  uint32_t dim = 0;    // the dimension cut, or kSliceDim for the cut between slices
  uint64_t links = 0;  // directed links crossing the cut (the bottleneck side for DCN)
  sim::Bandwidth bandwidth;
  uint32_t offset = 0;  // the rotation of a dimension's half cut (0: the middle)
};
// nullopt for a pod with nothing to cut (a single chip).
std::optional<BisectionCut> bisection(const Pod& pod);

}  // namespace podsim::topo
