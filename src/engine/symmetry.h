// Symmetric simulation: one chip per class where the pod and the program
// look the same from every chip of the class.
//
// A run qualifies when it is on the flow or the analytical network model
// (not packet), the pod has no fault (its slices, if several, are moved
// alike, the DCN switch left in place), and some translation of the torus
// (topo/symmetry.h)
// keeps every collective of the run (coll/symmetry.h); the engine's callers
// add their own conditions (no straggler; no translation along the
// pipeline axis). The classes
// are those of the largest such group: along each dimension the least
// common multiple of the collectives' periods. The engine then plays the
// classes' representatives only: they join every collective for their
// classes, their transfers load link classes (a flow crossing k links of a
// class counts k times on the class, which is what each of those links
// carries in the full run), and what a representative receives is what
// every chip of its class receives at the same instant. Max-min fair
// sharing gives every flow of an orbit the same rate (the allocation is
// unique, hence as symmetric as the problem; and in floating point the
// solver's rates depend on the problem's shape alone, not on how its links
// and flows are numbered: net/maxmin.h), so the result is that of the full
// simulation: tests/engine/symmetry_test.cc compares them bit for bit, and
// symmetry_random_test.cc on random operation lists and serving steps.
// The analytical model books each link's transfers of an instant by size
// (net/analytical_network.h): the representative link of a class books one
// copy of a transfer per link of that class its route crosses, which are the
// copies of the full run on that link, and equal transfers booked together
// end together in any order, so its bookings are the full run's too.
// Where it does not qualify the run is played in full, and why is said.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "net/network.h"
#include "topo/pod.h"
#include "topo/symmetry.h"

namespace podsim::engine {

struct SymmetryChoice {
  std::optional<topo::SymmetryClasses> classes;
  std::string why_full;  // when classes is empty: why the run is played in full
};

// Why no run on `pod` over `network` can be symmetric (the network model,
// faults), or nullopt when one may be, depending on its
// collectives.
std::optional<std::string> why_never_symmetric(const topo::Pod& pod, const net::Options& network);

// The classes for a run of `plans` on `pod` over `network`; translations
// move only along the dimensions `movable` marks (one flag per torus
// dimension: a folded step leaves out those it folded away).
SymmetryChoice choose_symmetry(const topo::Pod& pod, std::span<const coll::Plan* const> plans,
                               const net::Options& network, const std::vector<bool>& movable);

// A folded step on a pod with faults (engine/fold.h): the classes of the
// translations along the dimensions `movable` marks acting on the chips
// `moved` marks (the healthy replica that stands for the others) and fixing
// every other chip (topo::SymmetryClasses::make_within). The fold showed
// that no transfer of another replica crosses that replica's links, and its
// own stay on them, so the group keeps every link the run uses; a
// translation along a dimension is taken when it keeps every collective
// plan, moving the replica's groups and leaving every other group where it
// is (coll::keeps_plan on that permutation). Untwisted pods only (folding
// refuses twisted pods with faults).
SymmetryChoice choose_symmetry_within(const topo::Pod& pod,
                                      std::span<const coll::Plan* const> plans,
                                      const net::Options& network, const std::vector<bool>& movable,
                                      const std::vector<uint8_t>& moved);

// Per-link figures of a symmetric run as if every chip had been simulated:
// each link takes its class representative's (in place: pass the run's
// statistics by std::move, no second copy of a whole-pod table).
net::LinkStats unfold_classes(const topo::SymmetryClasses& classes, net::LinkStats stats);

// For reports: the classes ("translations x+1 y+1: 1 class of 256 chips (256
// in all)"), or why the run is played in full.
std::string describe(const topo::Pod& pod, const SymmetryChoice& choice);

}  // namespace podsim::engine
