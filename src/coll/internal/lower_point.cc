// Broadcast, collective permute and point-to-point sends.
//
// Broadcast over several units is a tree of pipelined chains: the buffer is
// cut into pieces; level 0 chains them from the root along its own group of
// the first unit, both ways; every chip level j reaches roots the chains of
// level j+1 along the next unit and forwards each piece there as soon as it
// has it. With P pieces and levels of depth D_j hops, the last chip has the
// buffer after about (P - 1 + sum D_j) piece times plus sum D_j hop
// latencies: one level's time plus D_j (piece time + latency) per extra level.
#include <algorithm>
#include <stdexcept>

#include "coll/internal/builder.h"
#include "topo/multipath.h"

namespace podsim::coll::internal {

using config::CollectiveAlgorithm;

void lower_broadcast(Builder& b, std::span<const TwistedAs> twisted_as) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  if (c.root >= plan.group_size) {
    throw std::invalid_argument("broadcast root " + std::to_string(c.root) +
                                " is outside its group of " + std::to_string(plan.group_size));
  }
  if (plan.group_size <= 1) {
    plan.schedule = "nothing to do (one chip per group)";
    return;
  }
  Phase ph;
  ph.pattern = Pattern::kChain;
  ph.axis = join_names(c.axes);
  // Pipelining: pieces of about 1 MiB, at least 1 and at most 64, so a long
  // chain fills quickly while a small buffer stays one transfer.
  ph.pieces = static_cast<uint32_t>(std::clamp<uint64_t>(c.bytes >> 20, 1, 64));
  const uint64_t piece = ceil_div(c.bytes, ph.pieces);
  std::vector<Unit> units;
  if (c.algorithm == CollectiveAlgorithm::kSnakeRing) {
    // One chain over the whole group in snake order, the root by position.
    Unit u;
    u.group_set = b.axes_group_set(c.axes);
    u.size = plan.group_size;
    u.wraps = true;
    for (const uint32_t d : b.ici_dims()) {
      u.wraps = u.wraps && b.pod().wraparound(d) &&
                std::none_of(b.pod().spec().torus.twists.begin(), b.pod().spec().torus.twists.end(),
                             [d](const config::TwistSpec& t) { return t.dim == d; });
    }
    u.label = join_names(c.axes, " ") + (u.wraps ? " snake ring" : " snake line");
    units.push_back(u);
    ph.levels.push_back(ChainLevel{topo::kSliceDim, false, c.root});
  } else {
    units = b.ici_units(false, twisted_as);
    if (!b.dcn_axes().empty() && b.pod().slice_count() > 1) {
      units.push_back(b.dim_unit(topo::kSliceDim));
    }
    // The root's coordinates: member `root` of any group (groups differ only
    // outside the collective's dimensions).
    const GroupSet& all = plan.group_sets[b.axes_group_set(c.axes)];
    const topo::ChipId root = all.groups.front()[c.root];
    for (const Unit& u : units) {
      ph.levels.push_back(ChainLevel{u.dim, true, b.pod().coord(root, u.dim)});
    }
  }
  std::string labels;
  for (uint32_t level = 0; level < units.size(); ++level) {
    const Unit& u = units[level];
    labels += (labels.empty() ? "" : " > ") + u.label;
    for (const int direction : {+1, -1}) {
      Lane lane;
      lane.direction = direction;
      lane.chunk_bytes = piece;
      lane.group_set = u.group_set;
      lane.wraps = u.wraps;
      lane.walk_dim = u.walk_dim;
      lane.level = level;
      ph.lanes.push_back(lane);
    }
  }
  plan.schedule = "pipelined chains " + labels + " (" + std::to_string(ph.pieces) +
                  (ph.pieces == 1 ? " piece)" : " pieces)");
  plan.shares.push_back(Share{{std::move(ph)}});
}

void lower_permute(Builder& b) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  Phase ph;
  ph.pattern = Pattern::kShift;
  ph.axis = join_names(c.axes);
  Lane lane;
  lane.group_set = b.axes_group_set(c.axes);
  // Over a group that closes into a ring of its own the shift wraps around
  // it. A twisted dimension's wrap lands on another line, so its groups are
  // lines: the last chip has no chip `shift` places along.
  lane.wraps = b.twisted_dims().empty();
  for (const uint32_t d : b.ici_dims()) {
    lane.wraps = lane.wraps && b.pod().wraparound(d);
  }
  lane.chunk_bytes = c.bytes;
  lane.shift = c.shift;
  ph.lanes = {lane};
  plan.shares.push_back(Share{{std::move(ph)}});
  plan.schedule = "shift by " + std::to_string(c.shift) + " over " + join_names(c.axes, " ");
}

void lower_send(Builder& b) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  const topo::Pod& pod = b.pod();
  Phase ph;
  ph.pattern = Pattern::kSend;
  ph.axis = "pairs";
  size_t routes = 0;
  for (const config::ChipPair& p : c.pairs) {
    const topo::ChipId src = pod.chip_at(p.src.slice, p.src.coords);
    const topo::ChipId dst = pod.chip_at(p.dst.slice, p.dst.coords);
    std::vector<std::vector<topo::LinkId>> paths = topo::disjoint_routes(pod, src, dst);
    const uint64_t k = paths.size();
    for (uint64_t r = 0; r < k; ++r) {
      // The routes carry the bytes in equal parts; the first ones one more.
      const uint64_t bytes = c.bytes / k + (r < c.bytes % k ? 1 : 0);
      ph.paths.push_back(SendPath{src, dst, bytes, std::move(paths[r])});
    }
    routes += k;
  }
  Lane lane;
  lane.group_set = b.dim_group_set(topo::kSliceDim);  // unused: paths name their chips
  lane.chunk_bytes = c.bytes;
  ph.lanes = {lane};
  plan.group_size = 2;
  plan.shares.push_back(Share{{std::move(ph)}});
  plan.schedule = std::to_string(c.pairs.size()) + (c.pairs.size() == 1 ? " pair" : " pairs") +
                  " over " + std::to_string(routes) + (routes == 1 ? " route" : " routes");
}

}  // namespace podsim::coll::internal
