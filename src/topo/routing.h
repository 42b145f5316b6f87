// Routes: the sequence of links a transfer from one chip to another crosses.
//
// route() is what the network model calls for every transfer, so it is cheap
// and deterministic:
//  - src == dst: no links.
//  - different slices: src's DCN up link, then dst's DCN down link (the fabric
//    is non-blocking; its latency sits on the up link).
//  - same slice: dimension-ordered routing (DOR). On a plain torus: dimension
//    0 first, then 1, ..., each the shorter way round a wraparound ring, on an
//    exact tie (size/2 on an even ring) + for TieBreak::kPlus, - for kMinus.
//  - on a twisted torus DOR knows where the twisted wraps land: along a
//    twisted dimension d it considers the displacements t = delta + m * n_d
//    (m in -2..2, |t| < 2 n_d), each crossing d's wrap m times and so moving
//    d's shift dimensions by m offsets, and takes the option of fewest total
//    hops (t plus the ring or line distances left on the other dimensions from
//    where the walk lands). The twisted dimensions are routed first, in index
//    order, their options chosen jointly (up to 3 of them; 5^3 combinations;
//    further ones go the shorter way), then the others in index order as on a
//    plain torus. Ties: options in a canonical order (twisted dimensions
//    lexicographically by m descending, then + before - on each untwisted
//    antipodal dimension); kPlus takes the first of fewest hops, kMinus the
//    last. The route is a shortest path on every healthy twisted torus whose
//    offsets are half their shift dimension, whose shift dimensions wrap and
//    which has at most 3 twisted dimensions (all k x k x 2k and k x 2k x 2k
//    slices); see topo/dor_plan.h for why and for the other cases.
//    O(hops + dims x twists + combinations x slots x shifted dimensions), a
//    few hundred ns on a twisted v5p slice; no allocation beyond the output.
//  - if the DOR walk meets a failed link, or does not end at dst (twists that
//    shift along twisted dimensions, which only specs built in code have),
//    the route is shortest_route() instead.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "topo/pod.h"

namespace podsim::topo {

// No path joins the two chips: failed links cut the slice in two.
class NoRoute : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which of the equally short dimension-ordered routes to take: on a plain
// torus, which way round a dimension whose destination is exactly opposite
// (even ring); on a twisted torus, the first or the last option of fewest
// hops in the canonical order above.
enum class TieBreak { kPlus, kMinus };

// Appends the route from src to dst to `out`; on a throw `out` is left as it
// was. Throws std::out_of_range on a bad chip id, NoRoute when the chips are
// not connected.
void route_into(const Pod& pod, ChipId src, ChipId dst, std::vector<LinkId>& out,
                TieBreak tie = TieBreak::kPlus);
std::vector<LinkId> route(const Pod& pod, ChipId src, ChipId dst, TieBreak tie = TieBreak::kPlus);

// route(pod, src, dst, tie) for every dst of `dsts` (chips of src's slice),
// each link handed to visit(dst, link) in route order: the same routes, with
// one breadth-first search from src shared by every destination whose
// dimension-ordered walk meets a failed link (route() searches once per
// destination). Throws what route() throws. O(dsts x hops + chips + links).
void visit_routes_from(const Pod& pod, ChipId src, std::span<const ChipId> dsts, TieBreak tie,
                       const std::function<void(ChipId, LinkId)>& visit);

// True exactly when route(..., kMinus) differs from route(..., kPlus).
// Traffic patterns that send to every chip split such transfers in half
// between the two routes so both ways round carry the same load.
// O(dims + combinations x dims x twists) on a healthy pod; with failed links
// (or twist chains) it walks both routes, O(hops), and when exactly one of
// them falls back to shortest_route() compares with it, O(chips + links).
bool route_has_tie(const Pod& pod, ChipId src, ChipId dst);

// A fewest-hops route over ICI links within a slice, found by Boost.Graph
// breadth_first_search; among equal-length routes, the first discovered when
// out-links are taken in LinkId order (so always the same one). Across slices,
// the same two DCN links as route(). O(chips + links) per call: the fallback
// for failed links, not the fast path.
std::vector<LinkId> shortest_route(const Pod& pod, ChipId src, ChipId dst);

// route(pod, src, dst).size(), without building the route on the DOR path.
uint32_t hops(const Pod& pod, ChipId src, ChipId dst);

// The links followed from src by repeatedly taking link_from(at, dim,
// direction) until reaching dst: a ring step along a dimension's true cycle.
// On a twisted dimension the cycle closes through the twisted wrap (on a
// twisted 8x16x16 slice the +x walk from (7,y,z) goes on at (0,y+8,z+8) and
// is back at (0,y,z) after 16 hops). Empty when src == dst; nullopt when a
// link is missing (end of a line, failed link) or the walk comes back to src,
// or exceeds chips-per-slice steps, without reaching dst (dst off the cycle,
// or in another slice). Throws std::out_of_range on a bad chip or dimension,
// std::invalid_argument on a direction other than +1 or -1. O(hops).
std::optional<std::vector<LinkId>> walk_along(const Pod& pod, ChipId src, ChipId dst, uint32_t dim,
                                              int direction);

// The number of +dim hops that bring `chip` back to itself, from the wiring
// (failed links are ignored; walk_along reports them): size on an untwisted
// wraparound dimension; on a twisted one size x the order of its shift (the
// fewest rounds r with r x offset = 0 modulo every shift dimension, offsets of
// one shift dimension summed), the same for every chip; 0 on a dimension
// without wraparound. Throws std::out_of_range on a bad chip or dimension.
// O(twists).
uint32_t cycle_length(const Pod& pod, ChipId chip, uint32_t dim);

}  // namespace podsim::topo
