#include "report/link_report.h"

namespace podsim::report {
LinkReport make_link_report(const topo::Pod& pod, const net::LinkStats& stats,
                            std::span<const topo::ChipId> represented_by,
                            const net::Options& network, sim::Time window) {
  LinkReport r;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    r.shape.push_back(pod.dim_size(d));
  }
  r.slices = pod.slice_count();
  r.chips = pod.chip_count();
  r.window = window;
  r.replicas_unfolded = false;
  for (topo::ChipId c = 0; c < represented_by.size() && !r.replicas_unfolded; ++c) {
    r.replicas_unfolded = represented_by[c] != c;
  }
  r.links.assign(pod.links().begin(), pod.links().end());
  r.usage = engine::link_usage(pod, engine::unfold_by(pod, represented_by, stats), network, window);
  return r;
}

}  // namespace podsim::report
