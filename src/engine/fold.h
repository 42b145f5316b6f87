// Replica folding: which chips a serving step simulates, and which
// simulated chip stands for each chip left out.
//
// A replica is the set of chips that share their coordinates along every
// torus dimension no collective and no stage transfer spans (data-parallel
// replicas, dimensions the mesh leaves out). Replicas run the same program,
// and a transfer between two chips of one replica moves only along spanned
// dimensions, so on a healthy pod it stays on that replica's links: replicas
// share no link and run alike. The engine then simulates one replica (every
// unspanned coordinate 0) for all.
//
// On a pod with faults (no twists, one slice) replicas still share nothing
// unless a fault reaches them. A replica is dirty when a dead chip or a
// straggler is among its chips, or a link along a spanned dimension between
// two of its chips failed or is degraded: its timeline differs. Its
// transfers that meet a failed link take the pod's fewest-hops route
// around it (topo/routing.h), which may cross other replicas' links: every
// route between two chips of a dirty replica is worked out, and the
// replicas whose links they cross are touched. The step then simulates the
// dirty and touched replicas chip by chip and one clean, untouched replica
// (the first) for every other: those run on healthy links that no other
// replica's traffic crosses, so they run alike, exactly (tests compare with
// the full run bit for bit). That replica is `stand_in`: the engine plays
// it one chip per class of its own translations (engine/symmetry.h,
// choose_symmetry_within). Where that cannot be shown cheaply (a
// send between named pairs, whose routes the plan fixes; dirty replicas
// with more than kMaxRoutePairs pairs of chips) every chip is simulated.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "topo/pod.h"

namespace podsim::engine {

struct FoldChoice {
  std::vector<topo::ChipId> chips;  // simulated, ascending
  // For each chip of the pod, the simulated chip standing for it (itself
  // when simulated); empty when every chip is simulated.
  std::vector<topo::ChipId> represented_by;
  // Dirty or touched replicas simulated beside the representative one (0
  // on a healthy pod), and why a faulty pod was not folded (empty if it was).
  uint32_t faulty_replicas = 0;
  // On a pod with faults, the chips of the healthy replica that stands for
  // the others (ascending; empty on a healthy pod or when not folded).
  std::vector<topo::ChipId> stand_in;
  std::string why_not;
};

// Route pairs worked out at most, over the dirty replicas.
inline constexpr uint64_t kMaxRoutePairs = uint64_t{1} << 22;

// `spanned`: the torus dimensions some collective or stage transfer spans
// (topo::kSliceDim for the slices). `stragglers`: chips slower than the
// rest. `named_sends`: the program has sends between named pairs. With
// `fold` false every chip is simulated. O(chips x dims) on a healthy pod;
// with faults also O(pairs x hops) plus a fewest-hops search per pair whose
// route meets a failed link.
FoldChoice choose_fold(const topo::Pod& pod, const std::set<uint32_t>& spanned, bool fold,
                       std::span<const topo::ChipId> stragglers, bool named_sends);

}  // namespace podsim::engine
