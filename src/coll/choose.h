// How lower() chooses among schedules: by timing each on the network model
// the run itself uses, so that the schedule kept is the fastest one on the
// model whose result the user reads. The analytical model's ranking cannot
// stand in for the others': it is exact for one share alone, but where the
// rotated shares of a multi-dimension collective meet on a link its
// first-come-first-served bookings and independently booked hops put it
// 15% above flow on one candidate and 6% below on another (the twisted
// v5p 4x4x8 all-reduce in tests/coll/choose_test.cc), so it ranked a
// twisted dimension's cycle ahead of its line where flow and packet find it
// slower. The packet model is the exception: its choice is made on the flow
// model, its fluid limit, which ranks the shipped twisted schedules as it
// does at about a twentieth of the cost (a 512 MiB reduce-scatter over the
// twisted v5p 8x16x16: 0.14 s a candidate on flow, 2.2 s on packet).
// Every chip joins at time zero; the result is the time the last chip
// finishes.
#pragma once

#include "coll/plan.h"
#include "net/network.h"
#include "sim/time.h"
#include "sim/work_budget.h"
#include "topo/pod.h"

namespace podsim::coll {

// The model lower() times candidates on for a run on `run`: the same model,
// except flow for a packet run.
net::Model choice_model(net::Model run);

// The time `plan` takes on a fresh simulation of choice_model(options.model)
// with the efficiencies of `options`. One run of the plan on that model:
// O(transfers x hops) on the analytical model, a max-min solve per event on
// flow. Its events charge `budget` (optional), which may throw
// sim::WorkLimitExceeded.
sim::Time estimate(const topo::Pod& pod, const Plan& plan, const net::Options& options,
                   sim::WorkBudget* budget = nullptr);

}  // namespace podsim::coll
