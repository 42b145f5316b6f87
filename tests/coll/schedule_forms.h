// Closed forms of the schedules docs/collectives.md describes, written from
// the schedule's definition (steps, chunk sizes, hops), not from podsim's
// code, so tests can hold the simulation to them. Every transfer of one
// chunk over one hop costs chunk / W1 + alpha (W1: one direction of one link,
// alpha: the hop latency); a serial lane sends its next chunk when the last
// one has arrived. Several dimensions split V into one share per dimension,
// share j taking the dimensions in rotated order; with equal dimension sizes
// the shares run in lockstep on disjoint links, so the collective takes one
// share's time.
#pragma once

#include <cstdint>
#include <vector>

namespace podsim::coll::testing {

struct FormDim {
  uint32_t n = 1;
  bool wraps = false;
};

struct FormLink {
  double w1 = 0;     // bytes/s, one direction of one link
  double alpha = 0;  // seconds per hop
};

// One phase over a dimension where each step moves `chunk` bytes one hop:
// a bidirectional ring takes ceil((n-1)/2) steps, a line n-1. On an even
// ring the last of them moves half a chunk each way (the opposite chip's
// chunk is split), so each link direction carries (n-1)/2 chunks.
double phase_seconds(FormDim d, double chunk, FormLink l);

// The collectives over `dims` (all the same size) of V bytes, as
// ALGORITHM_AUTO runs them.
double all_gather_seconds(const std::vector<FormDim>& dims, double v, FormLink l);
double reduce_scatter_seconds(const std::vector<FormDim>& dims, double v, FormLink l);
double all_reduce_seconds(const std::vector<FormDim>& dims, double v, FormLink l);
// Dimension-ordered segments, all at once: for each dimension its busiest
// link's blocks over W1, plus its farthest whole-block segment's hops and
// the earlier dimensions' farthest segments' hops; the worst dimension.
double all_to_all_seconds(const std::vector<FormDim>& dims, double v, FormLink l);
// A tree of pipelined chains `depth` hops deep carrying `bytes`, at the
// piece count P in [1, 64] that minimises (P - 1 + depth) x (ceil(bytes / P)
// / W1 + alpha).
double chain_seconds(uint64_t bytes, uint32_t depth, FormLink l);
// A broadcast over `dims` from the root at `root` (coordinates, one per
// dimension), as lower() runs it: the faster of whole pieces (a ring's
// depth floor(n/2), a line's max(r, n - 1 - r)) and, where every dimension
// wraps, each half of V one way round (a ring's depth n - 1).
double broadcast_seconds(const std::vector<FormDim>& dims, const std::vector<uint32_t>& root,
                         uint64_t v, FormLink l);

}  // namespace podsim::coll::testing
