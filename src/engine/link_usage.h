// Per-link utilisation of a run, for `podsim run --link-stats` and the
// link-utilisation heatmap (scripts/plot_breakdown.py).
//
// A network model counts, per directed link, the bytes it carried and the
// time it was busy (net::LinkStats). This turns them into utilisation over a
// window (the step time, or an operation list's makespan):
//   utilisation   = bytes / (published bandwidth x efficiency x window)
//   busy_fraction = busy time / window
// the first being how much of the link's capacity the run used, the second
// how long it had anything to carry.
//
// Replica folding (engine/step.h) simulates one replica of chips that no
// collective spans; the network then sees only the simulated chips' traffic.
// unfold_replicas() copies each simulated chip's link figures to the chips it
// stands for, which is exact for the same reason folding is: the pod is
// symmetric under translation along the dimensions nothing spans.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "net/network.h"
#include "sim/time.h"
#include "topo/pod.h"

namespace podsim::engine {

struct LinkUsage {
  topo::LinkId link = 0;
  uint64_t bytes = 0;
  sim::Time busy;
  double utilisation = 0;    // bytes / (effective bandwidth x window); 0 for an empty window
  double busy_fraction = 0;  // busy / window
};

// `stats` as if every chip had been simulated. `simulated` lists the chips the
// engine ran (StepResult::chips); with all of the pod's chips, or none, it
// returns `stats` unchanged. A torus dimension (or the slices) counts as
// spanned when some simulated chip has a non-zero coordinate along it: the
// fold keeps every coordinate of a spanned dimension and only coordinate 0 of
// the others. Each chip's links then take the figures of the same (dim,
// direction) link of its representative, the simulated chip with the same
// coordinates along spanned dimensions and 0 elsewhere; a link its
// representative lacks (the end of a line) carried nothing. O(links x dims).
net::LinkStats unfold_replicas(const topo::Pod& pod, std::span<const topo::ChipId> simulated,
                               const net::LinkStats& stats);

// For each chip of the pod (by ChipId), the simulated chip standing for it
// by the rule above: itself when simulated, or when `simulated` is empty or
// the whole pod. O(chips x dims).
std::vector<topo::ChipId> replica_representatives(const topo::Pod& pod,
                                                  std::span<const topo::ChipId> simulated);

// `stats` as if every chip had been simulated, each chip's links taking the
// figures of the same (dim, direction) link of `rep_of[chip]` (a step's
// StepResult::represented_by; a chip standing for itself keeps its own).
// Empty `rep_of`: `stats` unchanged. O(links).
net::LinkStats unfold_by(const topo::Pod& pod, std::span<const topo::ChipId> rep_of,
                         const net::LinkStats& stats);

// One entry per link of the pod, in LinkId order (ICI, then DCN). Efficiencies
// are the network's calibration (net::Options); `window` is the time the
// figures are averaged over. Precondition: stats has one entry per link.
std::vector<LinkUsage> link_usage(const topo::Pod& pod, const net::LinkStats& stats,
                                  const net::Options& network, sim::Time window);

}  // namespace podsim::engine
