// Translation symmetry of a pod: which chips and links look alike.
//
// A torus (wrapped along a dimension, twisted or not) is the Cayley graph of
// an abelian group: moving one hop along dimension d in the + direction is
// adding a generator, and adding it to every chip at once (a translation)
// maps the pod onto itself, link onto link, dimension and direction kept.
// On a twisted torus the hop across the twisted wrap also shifts the other
// coordinates; the translation follows the links, so it is still one.
// On a pod of several slices a translation moves every slice alike, each
// along its own ICI links; a chip's DCN up and down links go with the chip,
// and the DCN switch, which no translation moves, stays where it is.
//
// A Translation names one such map, `steps` hops along `dim`; a
// SymmetryClasses is the group the given translations generate, checked
// against the pod link by link (a failed, degraded or missing link anywhere
// in an orbit, a line end, a dead chip: not an automorphism, no classes).
// Its orbits are the classes of chips and of links. Translations move every
// chip (a non-trivial one fixes none), so every class of chips has the same
// number of members, the group's order, and so does every class of links.
//
// Partial classes (make_within): on a pod with faults no translation keeps
// every link, but a region the faults leave alone (a healthy replica whose
// links no other traffic crosses, engine/fold.h) may still be mapped onto
// itself. The group then moves the chips of that region only and fixes
// every other chip; a link joins a class only when both its ends move (the
// others, and every chip left alone, are classes of their own). That map is
// not an automorphism of the whole pod, only of the links the run uses: the
// caller must show that no transfer crosses a link with one end moved and
// one fixed. Classes then differ in size (class_size()).
//
// Who uses it: a symmetric simulation (engine/symmetry.h) plays one chip
// per class and shares each link class's bandwidth among the flows of the
// class (net/flow_network.h, Transfer::over_classes); a flow crossing k
// links of one class counts k times on its representative, which is the
// load every link of the class carries in the full run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::topo {

struct Translation {
  uint32_t dim = 0;    // torus dimension
  uint32_t steps = 1;  // hops along it in the + direction
  friend bool operator==(const Translation&, const Translation&) = default;
};

// The chip each chip moves to under `t`, following links (wraps, twists);
// nullopt when some chip has no + link along t.dim (a line, a failed link,
// a dimension of size 1) or when the one-hop map is not an automorphism of
// the pod's links (same dimension, direction, bandwidth and latency on the
// image of every link; then so is every power of it). O(links + chips x
// log steps).
std::optional<std::vector<ChipId>> translate(const Pod& pod, const Translation& t);

// `map` applied `times` times (a translation's power), by repeated
// squaring: O(chips x log times).
std::vector<ChipId> power(const std::vector<ChipId>& map, uint32_t times);

class SymmetryClasses {
 public:
  // The classes of the group `generators` generate on `pod`'s chips and
  // links; nullopt when one of them is not an automorphism (translate()),
  // or when the group is trivial (every class a single chip). O(chips x
  // dims x generators).
  static std::optional<SymmetryClasses> make(const Pod& pod,
                                             std::span<const Translation> generators);
  // The same, given for each generator the one-hop translation along its
  // dimension as translate(pod, {dim, 1}) returned it (checked, so not
  // checked again: on a 262,144-chip torus each check reads 1.5 million
  // links). O(chips x log steps + links) per generator.
  static std::optional<SymmetryClasses> make(const Pod& pod,
                                             std::span<const Translation> generators,
                                             std::span<const std::vector<ChipId>> checked_units);

  // The classes of `generators` acting on the chips `moved` marks (one flag
  // per chip) and fixing every other, as above. nullopt when a generator
  // does not map the moved chips onto themselves along their own links
  // (same dimension, direction, bandwidth and latency), or when every class
  // is a single chip. Translations follow the links (no twists). O(chips x
  // dims x generators).
  static std::optional<SymmetryClasses> make_within(const Pod& pod,
                                                    std::span<const Translation> generators,
                                                    const std::vector<uint8_t>& moved);

  // The representative of `chip`'s class: its smallest chip id.
  ChipId rep(ChipId chip) const { return chip_rep_[chip]; }
  // The representative of `link`'s class: its smallest LinkId.
  LinkId rep_link(LinkId link) const { return link_rep_[link]; }
  // Every class's representative, ascending.
  std::span<const ChipId> reps() const { return reps_; }
  uint32_t class_count() const { return static_cast<uint32_t>(reps_.size()); }
  // Chips per class (the group's order) when every class has this many;
  // 0 for partial classes (make_within), whose sizes differ.
  uint32_t orbit_size() const { return orbit_size_; }
  // Chips in `chip`'s class (itself included).
  uint32_t class_size(ChipId chip) const {
    return orbit_size_ != 0 ? orbit_size_ : class_size_[chip_rep_[chip]];
  }
  // Whether the group moves every chip (make) or a region only (make_within).
  bool partial() const { return orbit_size_ == 0; }
  std::span<const Translation> generators() const { return generators_; }
  // "translations x+4 y+2: 128 classes of 32 chips (4096 in all)", for reports.
  std::string describe(const Pod& pod) const;

 private:
  SymmetryClasses() = default;
  std::vector<Translation> generators_;
  std::vector<ChipId> chip_rep_;
  std::vector<LinkId> link_rep_;
  std::vector<ChipId> reps_;
  std::vector<uint32_t> class_size_;  // by representative; partial classes only
  uint32_t orbit_size_ = 1;
};

}  // namespace podsim::topo
