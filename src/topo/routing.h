// Routes: the sequence of links a transfer from one chip to another crosses.
//
// route() is what the network model calls for every transfer, so it is cheap
// and deterministic:
//  - src == dst: no links.
//  - different slices: src's DCN up link, then dst's DCN down link (the fabric
//    is non-blocking; its latency sits on the up link).
//  - same slice: dimension-ordered routing (DOR) — dimension 0 first, then 1,
//    ... — each along the shorter way round a wraparound ring; on an exact tie
//    (distance size/2 on an even ring) always the + direction. O(hops), no
//    allocation beyond the output. On a twisted torus the walk follows the
//    twisted wrap links and routes later dimensions from where it lands, so it
//    is a valid walk but not always a shortest one; see topo/metrics.h for the
//    true diameter.
//  - if the DOR walk meets a failed link, or a twist moved a dimension it had
//    already routed, the route is shortest_route() instead.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "topo/pod.h"

namespace podsim::topo {

// No path joins the two chips: failed links cut the slice in two.
class NoRoute : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which way to go round a wraparound dimension when both ways are equally
// short (the destination is exactly opposite on an even ring).
enum class TieBreak { kPlus, kMinus };

// Appends the route from src to dst to `out`; on a throw `out` is left as it
// was. Throws std::out_of_range on a bad chip id, NoRoute when the chips are
// not connected.
void route_into(const Pod& pod, ChipId src, ChipId dst, std::vector<LinkId>& out,
                TieBreak tie = TieBreak::kPlus);
std::vector<LinkId> route(const Pod& pod, ChipId src, ChipId dst, TieBreak tie = TieBreak::kPlus);

// True when the dimension-ordered route from src to dst meets a tie in some
// wraparound dimension, so route(..., kMinus) differs from route(..., kPlus).
// Traffic patterns that send to every chip split such transfers in half
// between the two routes so both ways round carry the same load. O(dims).
bool route_has_tie(const Pod& pod, ChipId src, ChipId dst);

// A fewest-hops route over ICI links within a slice, found by Boost.Graph
// breadth_first_search; among equal-length routes, the first discovered when
// out-links are taken in LinkId order (so always the same one). Across slices,
// the same two DCN links as route(). O(chips + links) per call: the fallback
// for failed links, not the fast path.
std::vector<LinkId> shortest_route(const Pod& pod, ChipId src, ChipId dst);

// route(pod, src, dst).size(), without building the route on the DOR path.
uint32_t hops(const Pod& pod, ChipId src, ChipId dst);

}  // namespace podsim::topo
