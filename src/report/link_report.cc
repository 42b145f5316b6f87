#include "report/link_report.h"

namespace podsim::report {
LinkReport make_link_report(const topo::Pod& pod, const net::LinkStats& stats,
                            std::span<const topo::ChipId> simulated, const net::Options& network,
                            sim::Time window) {
  LinkReport r;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    r.shape.push_back(pod.dim_size(d));
  }
  r.slices = pod.slice_count();
  r.chips = pod.chip_count();
  r.window = window;
  r.replicas_unfolded = !simulated.empty() && simulated.size() < pod.chip_count();
  r.links.assign(pod.links().begin(), pod.links().end());
  r.usage =
      engine::link_usage(pod, engine::unfold_replicas(pod, simulated, stats), network, window);
  return r;
}

}  // namespace podsim::report
