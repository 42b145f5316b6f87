#include "coll/reachable.h"

#include <array>

namespace podsim::coll {

void require_reachable(const topo::Pod& pod, const topo::Components& parts,
                       const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
                       std::string_view needed_by) {
  // A healthy pod (no link missing) joins every live chip of a slice, and
  // the loader keeps dead chips out of workloads: nothing to look at.
  if (!pod.has_failed_links())
    return;
  if (c.kind == config::CollectiveKind::kSend) {
    for (const config::ChipPair& p : c.pairs) {
      const std::array<topo::ChipId, 2> ends{pod.chip_at(p.src.slice, p.src.coords),
                                             pod.chip_at(p.dst.slice, p.dst.coords)};
      topo::require_reachable(pod, parts, ends, needed_by);
    }
    return;
  }
  for (const std::vector<topo::ChipId>& group : mesh.groups(c.axes))
    topo::require_reachable(pod, parts, group, needed_by);
}

}  // namespace podsim::coll
