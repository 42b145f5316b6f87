// The coll layer: collectives lowered into point-to-point transfers.
//
// lower() turns one collective over named mesh axes into a Plan: the buffer is
// split into shares that run at the same time; each share walks a sequence of
// phases; a phase is one communication pattern over one set of chip groups,
// run in one or two directional lanes. A chip enters phase p+1 of a share only
// when every lane of phase p is done at that chip (the data of the next phase
// is what the previous one produced). The executor (coll/executor.h) plays a
// plan on a network.
//
// What a TPU does, and so what ALGORITHM_AUTO builds:
//  - a wraparound axis runs a bidirectional ring: every chunk travels half way
//    round each way (ceil((N-1)/2) steps one way, floor((N-1)/2) the other),
//    so both directions of every link carry data, the bandwidth term is
//    V / W and the latency term N/2 hops, the two limits of [SB]'s
//    T = max(T_min |X| / 2, V / W). (Splitting the antipodal chunk between
//    the two ways would save a further V / (N W); a TPU is not documented to);
//  - an axis without wraparound is a line: a two-way pipeline whose end links
//    carry N-1 chunks (about twice the ring's time);
//  - several axes split the buffer into one share per axis, share j visiting
//    the axes in rotated order, so every axis' links work at once
//    (~ V / (W x axes));
//  - all-to-all sends each pair's block along its dimension-ordered route;
//  - across slices (an axis over the "slice" dimension) the collective is
//    hierarchical: reduce-scatter inside slices, a ring over DCN between
//    counterpart chips, all-gather inside slices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/workload_spec.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll {

enum class Pattern : uint8_t {
  kRing,         // Lane::steps steps to the next member along the lane, wrapping around
  kLineGather,   // a line; member at position q sends steps 0..q (the chunks from behind)
  kLineScatter,  // a line; member at position q sends steps q..N-2 (partial sums ahead)
  kDirect,       // one step: every member sends to every other member
  kChain,        // broadcast: pieces flow from the root to the end of the lane
  kShift,        // one step: member p sends to member p + shift
};

struct Lane {
  int direction = +1;        // along the group's order
  uint64_t chunk_bytes = 0;  // bytes of one transfer
  uint32_t steps = 0;        // kRing: steps every member takes
};

struct Phase {
  Pattern pattern = Pattern::kRing;
  uint32_t group_set = 0;  // index into Plan::group_sets
  bool wraps = false;      // the group closes into a ring (last member links to first)
  bool reduces = false;    // receipts are reduced into the chip's buffer
  std::vector<Lane> lanes;
  // kChain: pieces per lane and the root's position; kShift: the offset.
  uint32_t pieces = 1;
  uint32_t root = 0;
  int32_t shift = 0;
  std::string axis;  // for reports: the mesh axes this phase runs over
};

struct Share {
  std::vector<Phase> phases;
};

struct GroupSet {
  std::vector<std::vector<topo::ChipId>> groups;  // ring order, from DeviceMesh
  std::vector<uint32_t> group_of;                 // chip -> index into groups
  std::vector<uint32_t> position;                 // chip -> index within its group
};

struct Plan {
  std::vector<GroupSet> group_sets;
  std::vector<Share> shares;
  uint32_t group_size = 1;  // chips in one group of the whole collective
};

// Lowers `c` onto the pod. Throws std::invalid_argument when the collective
// cannot be run as asked (unknown axis, a root outside the group, ...); the
// workload loader checks these first, so this is a second line of defence.
Plan lower(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c);

// NCCL-tests' bus-bandwidth factor for a collective over n chips: the fraction
// of V each chip's links must carry, so busbw = algbw x factor is comparable
// across sizes (AG/RS/A2A: (n-1)/n, AR: 2(n-1)/n, broadcast and permute: 1).
double bus_bandwidth_factor(config::CollectiveKind kind, uint32_t n);

const char* to_string(config::CollectiveKind kind);

}  // namespace podsim::coll
