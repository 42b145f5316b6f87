// Whether a lowered collective is the same seen from every chip of a class.
//
// A translation of the pod (topo/symmetry.h) keeps a plan when every chip
// does, at its image, what the image does: each group of each group set
// maps onto one group, and the members keep their places in it, or, for
// the patterns that treat every place alike (rings that close, all-to-alls,
// shifts that wrap), all move round by the same amount; a broadcast tree
// keeps its roots' coordinates; an all-to-all's split blocks (route ties)
// are the same at every chip. Sends between named pairs are kept by no
// translation here. Chunk sizes are per lane, so every member of a lane
// moves the same bytes; routes are dimension-ordered, along the shorter way
// or walked along one dimension, which depend only on where the peer lies
// relative to the sender, so translating the sender translates the route
// (the symmetric-versus-full tests in tests/engine/ check it).
#pragma once

#include <cstdint>
#include <vector>

#include "coll/plan.h"
#include "topo/pod.h"

namespace podsim::coll {

// Whether the chip permutation `map` (a translation of `pod`) keeps `plan`,
// as above. O(chips x group sets + lanes).
bool keeps_plan(const topo::Pod& pod, const Plan& plan, const std::vector<topo::ChipId>& map);

// The fewest hops along `dim` whose translation keeps `plan`: a divisor of
// the dimension's size, the size itself when no shorter one does. `unit`
// is the one-hop translation along `dim` (topo::translate). O(divisors x
// chips x log size).
uint32_t plan_period(const topo::Pod& pod, const Plan& plan, uint32_t dim,
                     const std::vector<topo::ChipId>& unit);

}  // namespace podsim::coll
