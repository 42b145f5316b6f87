// `podsim capacity` spread over threads and, under mpirun, over the ranks of
// an MPI job (the sweep transport, sweep/transport.h), with the output of
// one process (docs/serving.md, "Capacity on many cores").
//
//  - The rate search measures, per round, the next ranks x jobs probes of
//    its decision tree (fleet/capacity_lookahead.h), dealt round robin over
//    the ranks; rank 0 merges them and hands them to every rank, and every
//    rank walks the same path. The runs reported and the answer are those
//    of the sequential bisection whatever the number of ranks and threads.
//  - --target-rate deals the configurations round robin over the ranks (on
//    `jobs` threads each); rank 0 gathers them in the order given.
//
// Every rank calls these with the same arguments.
#pragma once

#include <vector>

#include "config/serve_spec.h"
#include "fleet/capacity.h"
#include "sweep/transport.h"

namespace podsim::fleet {

// find_capacity, every rank getting the whole result.
CapacityResult find_capacity_across(const config::ServeSpec& spec, const CapacityOptions& options,
                                    sweep::Transport& transport, unsigned jobs);

// fewest_chips; the result on rank 0 only (the others get an empty one).
FewestChips fewest_chips_across(const std::vector<config::ServeSpec>& specs, double rate,
                                const CapacityOptions& options, sweep::Transport& transport,
                                unsigned jobs);

}  // namespace podsim::fleet
