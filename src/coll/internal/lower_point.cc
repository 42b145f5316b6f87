// Broadcast, collective permute and point-to-point sends.
//
// Broadcast over several units is a tree of pipelined chains: the buffer is
// cut into pieces (as many as minimise the tree's closed form, chain_pieces); level 0 chains them
// from the root along its own group of the first unit, both ways; every chip level j reaches roots
// the chains of level j+1 along the next unit and forwards each piece there as soon as it has it.
// With P pieces and levels of depth D_j hops, the last chip has the buffer after about (P - 1 + sum
// D_j) piece times plus sum D_j hop latencies: one level's time plus D_j (piece time + latency) per
// extra level.
//
// Split, the broadcast is two such trees at once, each carrying half of the
// buffer: on every ring level one half goes all the way round one way and
// the other half the other way (depth n - 1 instead of floor(n/2)), so each
// direction of a ring link carries V/2 instead of V. Splitting halves the
// bandwidth term and about doubles the depth: lower() keeps whichever is
// faster. Only a tree of rings is split. On a line both halves must cross
// every link each way anyway, so a line level would carry the two trees'
// pieces at once, contending, and whether that helps depends on how the
// links interleave them: on the twisted v5p 4x4x8 over x line, y line and z
// ring, 16 MiB split takes 256 us on flow and analytical against 254 us
// whole, but 214 us on packet, whose queues finish one piece at a time
// (tests/coll/balanced_broadcast_test.cc).
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "coll/internal/builder.h"
#include "topo/multipath.h"

namespace podsim::coll::internal {

using config::CollectiveAlgorithm;

namespace {

constexpr uint32_t kMaxPieces = 64;

// One hop of a unit's chain: the published one-way bandwidth and latency of
// its links (a snake's slowest dimension; the slices' DCN).
struct Hop {
  sim::Bandwidth bandwidth;
  sim::Time latency;
};

Hop unit_hop(const Builder& b, const Unit& u) {
  const config::PodSpec& spec = b.pod().spec();
  std::optional<Hop> hop;
  const auto take = [&hop](sim::Bandwidth bandwidth, sim::Time latency) {
    if (!hop) {
      hop = Hop{bandwidth, latency};
      return;
    }
    hop->bandwidth = std::min(hop->bandwidth, bandwidth);
    hop->latency = std::max(hop->latency, latency);
  };
  // A snake (no dimension of its own) crosses every ICI dimension of the
  // collective, and the DCN when it spans slices.
  const bool snake = u.dim == topo::kSliceDim && !u.dcn;
  if ((u.dcn || (snake && !b.dcn_axes().empty() && b.pod().slice_count() > 1)) && spec.dcn)
    take(spec.dcn->bandwidth_per_chip, spec.dcn->latency);
  if (!u.dcn) {
    const std::vector<uint32_t> one{u.dim};
    for (const uint32_t d : snake ? b.ici_dims() : one)
      take(spec.torus.dims[d].link_bandwidth, spec.torus.dims[d].hop_latency);
  }
  // No link at all cannot carry a chain; one piece then.
  return hop.value_or(Hop{sim::Bandwidth::bytes_per_s(1), sim::Time::zero()});
}

// Hops from the root to the chain's farthest chip: a ring floor(n/2) each
// way, or n - 1 one way split; a line max(r, n - 1 - r) from root position r.
uint32_t chain_depth(const Unit& u, uint32_t root, bool split) {
  if (u.wraps) {
    return split ? u.size - 1 : u.size / 2;
  }
  return std::max(root, u.size - 1 - root);
}

// The piece count P in [1, 64] that minimises the tree's closed form
//     T(P) = (P - 1) x max_j t_j + sum_j D_j t_j,  t_j = ceil(V / P) / W_j + alpha_j
// (the pipeline's slowest hop paces the pieces; the first piece crosses every
// level's depth), on the published links, the fewest pieces on a tie. For each
// P, T grows with V, so the minimum does too: more bytes are never faster,
// where a fixed size of piece made a buffer of 2 MiB broadcast faster than
// one of 2 MiB - 1 byte.
uint32_t chain_pieces(const Builder& b, const std::vector<Unit>& units,
                      const std::vector<ChainLevel>& levels, uint64_t bytes, bool split) {
  std::vector<Hop> hops;
  std::vector<uint32_t> depths;
  for (size_t j = 0; j < units.size(); ++j) {
    hops.push_back(unit_hop(b, units[j]));
    depths.push_back(chain_depth(units[j], levels[j].root, split));
  }
  uint32_t best = 1;
  sim::Time best_time;
  const auto most = static_cast<uint32_t>(std::clamp<uint64_t>(bytes, 1, kMaxPieces));
  for (uint32_t p = 1; p <= most; ++p) {
    const uint64_t piece = ceil_div(bytes, p);
    sim::Time slowest;
    sim::Time fill;
    for (size_t j = 0; j < hops.size(); ++j) {
      const sim::Time t = sim::transfer_time(piece, hops[j].bandwidth) + hops[j].latency;
      slowest = std::max(slowest, t);
      fill += depths[j] * t;
    }
    const sim::Time total = (p - 1) * slowest + fill;
    if (p == 1 || total < best_time) {
      best = p;
      best_time = total;
    }
  }
  return best;
}

}  // namespace

void lower_broadcast(Builder& b, std::span<const TwistedAs> twisted_as, bool split) {
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
  split = split && c.bytes >= 2 &&
          std::all_of(units.begin(), units.end(), [](const Unit& u) { return u.wraps; });
  ph.pieces = chain_pieces(b, units, ph.levels, split ? c.bytes - c.bytes / 2 : c.bytes, split);
  std::string labels;
  for (const Unit& u : units) {
    labels += (labels.empty() ? "" : " > ") + u.label;
  }
  // Unsplit: one tree with the whole buffer. Split: share 0 takes the first
  // half (rounded up) clockwise round every ring, share 1 the rest the other
  // way.
  const int ways = split ? 2 : 1;
  for (int s = 0; s < ways; ++s) {
    const uint64_t bytes = split ? (s == 0 ? c.bytes - c.bytes / 2 : c.bytes / 2) : c.bytes;
    Phase share_phase = ph;
    for (uint32_t level = 0; level < units.size(); ++level) {
      const Unit& u = units[level];
      for (const int direction : {+1, -1}) {
        const bool whole_ring = split && u.wraps;
        if (whole_ring && direction != (s == 0 ? +1 : -1)) {
          continue;
        }
        Lane lane;
        lane.direction = direction;
        lane.chunk_bytes = ceil_div(bytes, ph.pieces);
        lane.group_set = u.group_set;
        lane.wraps = u.wraps;
        lane.whole_ring = whole_ring;
        lane.walk_dim = u.walk_dim;
        lane.level = level;
        share_phase.lanes.push_back(lane);
      }
    }
    plan.shares.push_back(Share{{std::move(share_phase)}});
  }
  plan.schedule = "pipelined chains " + labels + " (" + std::to_string(ph.pieces) +
                  (ph.pieces == 1 ? " piece" : " pieces") +
                  (split ? ", each split over both ways round every ring)" : ")");
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
  // A cyclic shift closes the group whatever its dimensions: the wrapping
  // transfers take the pod's routes (across a line, its whole length).
  const bool closed_by_routes = c.cyclic && !lane.wraps;
  lane.wraps = lane.wraps || c.cyclic;
  lane.chunk_bytes = c.bytes;
  lane.shift = c.shift;
  ph.lanes = {lane};
  plan.shares.push_back(Share{{std::move(ph)}});
  plan.schedule = std::string(closed_by_routes ? "cyclic " : "") + "shift by " +
                  std::to_string(c.shift) + " over " + join_names(c.axes, " ");
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
