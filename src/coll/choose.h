// How lower() chooses among schedules: by timing each on the analytical
// network model (net/analytical_network.h), which charges every link its
// bytes in turn, so contention counts, at a cost of O(hops) per transfer and
// no max-min solve. Every chip joins at time zero; the result is the time
// the last chip finishes. The choice is a closed-form estimate, not the run
// itself: the run then plays the chosen plan on the network the user picked.
#pragma once

#include "coll/plan.h"
#include "net/network.h"
#include "sim/time.h"
#include "topo/pod.h"

namespace podsim::coll {

// The time `plan` takes on a fresh simulation of the analytical model with
// the efficiencies of `options` (its model field is ignored). O(transfers x
// hops) time, O(chips x lanes) memory.
sim::Time estimate(const topo::Pod& pod, const Plan& plan, const net::Options& options);

}  // namespace podsim::coll
