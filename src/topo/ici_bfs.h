// Breadth-first search over the ICI links of a pod (internal to the topo layer).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "topo/pod.h"

namespace podsim::topo::detail {

inline constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
inline constexpr LinkId kNoPred = std::numeric_limits<LinkId>::max();

// The BFS tree from one chip: for every vertex, the link it was first reached
// by (kNoPred for the root and unreached vertices) and its distance in hops
// (kUnreached when not reached).
struct BfsTree {
  std::vector<LinkId> pred_link;
  std::vector<uint32_t> dist;
};

// Boost.Graph breadth_first_search from `src` over ICI links only, so it never
// leaves src's slice. Out-links are scanned in LinkId order, which makes the
// tree deterministic. Reuses `tree`'s storage. O(vertices + links).
void ici_bfs(const Pod& pod, ChipId src, BfsTree& tree);

}  // namespace podsim::topo::detail
