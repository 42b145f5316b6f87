// Which live chips can reach which: the connected components of a pod's
// live chips over its working ICI links, one BFS, O(chips + links).
//
// Dead chips and failed links can cut a slice's live chips apart. Routing
// finds that out only when a transfer asks for a route across the cut
// (topo::NoRoute, mid-run), so runs check every pair of chips their
// workload joins against these components once, before the first event
// (require_reachable), and `podsim topo` reports the diameter over live
// chips or names the components.
//
// ICI links come in pairs (a failed link or a dead chip removes both
// directions, pod.h), so reachability is symmetric and weak and strong
// components agree. Chips of different slices reach each other over DCN
// (every chip has its up and down link), so components never span slices.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "topo/pod.h"

namespace podsim::topo {

// A route the workload needs crosses a cut: the pod's live chips are split.
// The message names the chips, the components of their slice and what needed
// the route.
class Partitioned : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Components {
  static constexpr uint32_t kDead = std::numeric_limits<uint32_t>::max();

  std::vector<uint32_t> of_chip;  // chip -> component, kDead for a dead chip
  std::vector<uint32_t> slice;    // component -> its slice
  std::vector<uint32_t> size;     // component -> live chips in it
  std::vector<ChipId> first;      // component -> its lowest chip id
  // Live components per slice (0 for a slice whose chips are all dead).
  std::vector<uint32_t> per_slice;

  // Every slice's live chips form one component.
  bool connected() const;
  // Both chips are live and a route joins them: same component, or
  // different slices (over DCN).
  bool reachable(ChipId a, ChipId b) const;
};

// O(chips + links). A pod with no dead chips and no failed links is one
// component per slice without a search.
Components ici_components(const Pod& pod);

// "(0,1)" or "slice 1 (0,1)" on a pod of several slices.
std::string chip_name(const Pod& pod, ChipId chip);

// The components of `slice` for a message, largest first, each by its size
// and (up to a few) its chips: "{(0,0)} and {(1,1)}",
// "{12 chips: (0,0), (0,1), (0,2), ...} and {(3,3)}". O(chips of the slice).
std::string describe_components(const Pod& pod, const Components& c, uint32_t slice);

// Throws Partitioned unless every two chips of `chips` can reach each other
// (live, and the chips of each slice in one component); `needed_by` says
// what needs the routes ("operation 'ar' (all-reduce over x)"). O(chips x
// slices spanned); the message O(chips of the slice).
void require_reachable(const Pod& pod, const Components& c, std::span<const ChipId> chips,
                       std::string_view needed_by);

}  // namespace podsim::topo
