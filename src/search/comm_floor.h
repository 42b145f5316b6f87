// The least time a chip's part of a collective, or a stage transfer, takes
// on any network model, for the step-time bound (step_bound.h): the bytes a
// chip must receive over the most bytes per second any chip of the pod can
// receive (the published bandwidths of its incoming links, ICI and DCN,
// summed; a network model's effective bandwidth is at most the published
// one).
//
// Why the bytes are a floor: data of a collective leaves a member only once
// that member has reached the collective, so nothing of it arrives before
// the first member does; in the bound's schedule every chip of a stage
// reaches it at the same time, no later than any simulated chip does. What
// each member must receive, V being CollectiveSpec::bytes as the cost
// formulas count it over a group of n chips (workload.proto):
//  - all-gather: the n - 1 shards it lacks, (n - 1) / n x V;
//  - all-reduce: the others' contributions to every element, at least
//    (n - 1) / n x V (a ring receives twice that);
//  - reduce-scatter: the others' contributions to its shard, at least
//    (n - 1) / n x V / n;
//  - all-to-all: one block of V / n^2 from each other member;
//  - broadcast, permute, send: nothing for some chip (the root, the end of a
//    line, a chip in no pair), so no floor;
//  - a stage transfer: its bytes, at the receiving chip.
// Bytes and picoseconds are rounded down, so rounding never lifts a floor
// above a simulated time (sim::transfer_time rounds up).
//
// And the latency: every network model charges each link's latency to
// every transfer crossing it, so data from a member h hops away arrives no
// earlier than h x the smallest ICI hop latency after that member reached
// the collective. In an all-gather, all-reduce, reduce-scatter or
// all-to-all each member needs data from every other, the farthest
// included: h is the group's farthest distance on the healthy torus (half a
// wraparound dimension, a line's length less one, summed over the group's
// dimensions; failed links only lengthen routes; on a twisted torus, whose
// wraps may shorten them, one hop). Crossing slices costs at least the DCN
// latency, which on a multi-slice pod also caps the ICI figure (a route may
// go through the fabric). A stage transfer crosses at least one hop. The
// floor is the larger of the bytes' and the latency's.
#pragma once

#include <cstdint>

#include "sim/time.h"
#include "topo/mesh.h"
#include "topo/pod.h"
#include "workload/program.h"

namespace podsim::search {

class CommFloor {
 public:
  CommFloor(const topo::Pod& pod, const topo::DeviceMesh& mesh);

  // Zero for compute instructions.
  sim::Time of(const workload::Instruction& ins) const;

 private:
  sim::Time receive(uint64_t bytes) const;
  // The least latency between the farthest members of a group over `axes`.
  sim::Time latency(const std::vector<std::string>& axes) const;

  const topo::DeviceMesh* mesh_;
  const topo::Pod* pod_;
  workload::MeshAxes axes_;
  uint64_t max_in_bytes_per_s_ = 0;
  sim::Time min_ici_latency_ = sim::Time::max();
  sim::Time dcn_latency_ = sim::Time::max();  // max(): one slice, no DCN
  sim::Time one_hop_ = sim::Time::zero();     // the least latency of any route
};

}  // namespace podsim::search
