// Point-to-point multipath: the link-disjoint dimension-ordered routes one
// transfer splits its bytes over, as ICI does between two chips.
//
// disjoint_routes(pod, src, dst):
//  - src == dst: one empty route. Different slices: the one DCN route.
//  - let v be the DOR plan of route(pod, src, dst) (topo/routing.h): signed
//    hops per dimension, and D the k dimensions with nonzero hops, in the
//    order route() walks them. On a plain torus D is the set of dimensions in
//    which src and dst differ; on a twisted one it may gain a dimension walked
//    all the way round (for its twist) or lose one the twist fixes.
//  - k >= 2: the k routes that walk v's hops along D in its k cyclic rotations
//    (rotation 0 is route() itself). Each leaves src on a different port (its
//    first dimension) and arrives on a different port (its last). v is chosen
//    once: when the shift dimensions wrap and are not twisted themselves, a
//    walk's end does not depend on the order of its hops (the slice is an
//    abelian Cayley graph), so the twisted-aware choice for route()'s order
//    is the one for every rotation; otherwise a rotation missing dst is dropped.
//  - k == 1 and route_has_tie(): the two tied routes, route(kPlus) and
//    route(kMinus) (on an even ring exactly half way round, the two ways round).
//  - otherwise one route, route().
// Disjoint on a healthy plain torus: rotation i walks dimension d with the dimensions from its
// start to d at dst's coordinates, the rest at src's (a set that names i), so two rotations
// walk d on lines that differ where src and dst differ.
// On a twisted torus (where walks can meet again through the twisted wraps)
// and around failed links, candidates are walked in the order above and kept
// only if they are valid walks from src to dst, use no link twice and share
// no link with a route already kept; rotation 0 (route()) is always kept on a
// healthy torus. If none survives (failed links), the result is
// { shortest_route() }.
// Cost: O(k x hops x log(k x hops)) plus one DOR plan (a small constant);
// O(chips + links) more when falling back to shortest_route().
#pragma once

#include <vector>

#include "topo/pod.h"

namespace podsim::topo {

// Throws std::out_of_range on a bad chip id, NoRoute when the chips are not
// connected.
std::vector<std::vector<LinkId>> disjoint_routes(const Pod& pod, ChipId src, ChipId dst);

}  // namespace podsim::topo
