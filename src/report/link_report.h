// Per-link utilisation in `podsim run --format json --link-stats`: the
// "link_stats" message of podsim.Result (report/result_outputs.h fills it),
// which scripts/plot_breakdown.py draws as a heatmap of the torus. docs/outputs.md documents every
// key.
//
// The object lists every directed link of the pod (ICI, then DCN), so its
// size grows with the pod: about 300 bytes of JSON per link, 16 MB for the
// 53,760 links of a v5p 16x20x28 pod. That is why it is opt-in.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/link_usage.h"
#include "sim/time.h"
#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::report {

// What the JSON needs, copied out of the pod so it does not have to outlive
// the report inputs.
struct LinkReport {
  std::vector<uint32_t> shape;  // torus size per dimension
  uint32_t slices = 1;
  uint32_t chips = 0;                    // the DCN fabric vertex, when present, is vertex `chips`
  sim::Time window;                      // utilisation is averaged over it
  bool replicas_unfolded = false;        // folded replicas' figures copied by symmetry
  std::vector<topo::Link> links;         // by LinkId
  std::vector<engine::LinkUsage> usage;  // by LinkId
};

// The report of a run whose network counted `stats` (one entry per link)
// over `window`. `represented_by` names, for each chip, the simulated chip
// standing for it when the engine folded replicas
// (StepResult::represented_by); their figures are copied to the replicas
// (engine::unfold_by). Empty for a run that simulated every chip.
LinkReport make_link_report(const topo::Pod& pod, const net::LinkStats& stats,
                            std::span<const topo::ChipId> represented_by,
                            const net::Options& network, sim::Time window);

}  // namespace podsim::report
