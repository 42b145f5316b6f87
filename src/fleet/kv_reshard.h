// Heterogeneous disaggregation: which chip of a prefill replica sends which
// bytes of a sequence's KV cache to which chip of a decode replica whose
// chips, slice shape or sharding differ (docs/serving.md, "Heterogeneous
// fleets").
//
// A replica's KV layout is read from its workload's sharding against its own
// pod, through the device mesh the engine builds (engine/workload_mesh.h:
// the same topo::DeviceMesh::index_in_group the engine uses to give each
// chip its pipeline stage):
//  - pipeline stages hold contiguous layers, L / P each, stage s on the chips
//    at index s of the pipeline axis;
//  - a sequence lives on one sequence group: its data-parallel index over
//    the data axes (times the tensor axis's chips with KV_BY_BATCH, where
//    each tensor chip holds whole sequences);
//  - by heads, the tensor axis's chip t holds KV heads [t K / T, (t+1) K / T)
//    when T divides K, else head t / (T / K) (each head on T / K chips, as
//    workload/README.md replicates them); a multi-head latent cache (MLA) is
//    one unit per layer shared by every head, on every tensor chip.
// A unit is one KV head's K and V of one layer (or MLA's latent and RoPE
// key), `unit_bytes` per cached token. Layouts the workload layer splits
// otherwise (two tensor axes, weight-gathered, expert axes, padded heads)
// are refused with the reason (KvLayoutError), not guessed at.
//
// The pattern: every destination chip needs every unit of every layer it
// holds; each comes from one source chip holding it, round robin over the
// holders of that (source stage, unit) in the order the destination chips
// (by id) and their layers ask (so replicated heads spread the sends). So the bytes a destination
// chip receives equal exactly what it holds of the sequence, and a pair's bytes are the overlap of
// the two chips' layer and head ranges (split among the holders). O(units x holders + destination
// chips x units) per pattern.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/workload_spec.h"
#include "topo/pod.h"

namespace podsim::fleet {

class KvLayoutError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One chip's part of the KV cache of a sequence of its group.
struct KvShard {
  uint32_t stage = 0;       // pipeline stage
  uint32_t group = 0;       // sequence group
  uint32_t first_unit = 0;  // units [first_unit, first_unit + units) of each layer
  uint32_t units = 0;

  friend bool operator==(const KvShard&, const KvShard&) = default;
};

struct KvLayout {
  uint32_t layers = 0;         // L
  uint32_t stages = 1;         // P: stage s holds layers [s L / P, (s + 1) L / P)
  uint32_t units = 0;          // per layer: KV heads, or 1 for an MLA latent
  uint32_t groups = 1;         // sequence groups
  uint64_t unit_bytes = 0;     // one unit of one layer, per cached token
  std::vector<KvShard> chips;  // by chip id of the replica's own slice

  uint32_t layers_per_stage() const { return layers / stages; }
  // Bytes per cached token chip `c` holds of a sequence of its group.
  uint64_t chip_bytes_per_token(uint32_t c) const {
    return uint64_t{layers_per_stage()} * chips.at(c).units * unit_bytes;
  }
  // Bytes per cached token the whole group `g` holds (replicas counted).
  uint64_t group_bytes_per_token(uint32_t g) const;

  friend bool operator==(const KvLayout&, const KvLayout&) = default;
};

// The layout of `workload` (a serving workload) on `pod` (its replica's
// slice). Throws KvLayoutError for a sharding this rule does not cover.
KvLayout kv_layout(const topo::Pod& pod, const config::WorkloadSpec& workload);

struct KvPairBytes {
  uint32_t src = 0;  // chip id in the source replica's slice
  uint32_t dst = 0;  // chip id in the destination replica's slice
  uint64_t bytes_per_token = 0;

  friend bool operator==(const KvPairBytes&, const KvPairBytes&) = default;
};

// The sends that move a sequence held by group `src_group` of `from` into
// group `dst_group` of `to`, by destination chip then source chip; pairs
// with nothing to move are left out. Throws KvLayoutError when the two
// layouts are not of one cache (layers, units or unit bytes differ) or a
// group is out of range.
std::vector<KvPairBytes> kv_reshard(const KvLayout& from, uint32_t src_group, const KvLayout& to,
                                    uint32_t dst_group);

}  // namespace podsim::fleet
