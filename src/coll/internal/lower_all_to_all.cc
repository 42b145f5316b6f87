// All-to-all: every chip of a group sends a block of V / N^2 to every other.
//
// DIRECT, or one dimension: every pair exchanges its block along its route
// (the pod's shortest dimension-ordered route), a block exactly opposite on
// an even ring half each way round.
//
// Several dimensions (the default): what the hardware does -- every block
// along its dimension-ordered route, cut through at each turn -- modelled by
// the routes' segments. A route is a run of hops along each dimension in turn
// (t_d signed hops along d); a chip sends, for every dimension d and every
// displacement t, one transfer t hops along d carrying every block whose
// route takes that segment from that chip: on an untwisted torus N / n_d
// blocks per (d, t), since the routes' displacements are independent per
// dimension; on a twisted torus the counts come from the routes of one chip
// of the group to all the others (the slice is vertex-transitive, so every
// chip's are the same, translated). The segments load every link exactly as
// the direct exchange does, with N x sum(n_d) transfers instead of N^2, and
// the twisted links are used wherever a shortest route takes them, including
// by groups that do not span the twisted dimension (a y-z all-to-all on a
// twisted slice may shortcut through the x cycle). All segments start at
// once, as cut-through routing overlaps a route's hops; a receipt on a later
// dimension counts after the earlier dimensions' longest segments' hop
// latency, so a latency-bound exchange costs the longest route's latency
// (the sum of its segments'), a bandwidth-bound one its busiest link's load.
// SEQUENTIAL_AXES runs one phase per dimension after another with the whole
// buffer instead (store and forward at every turn). With failed links the
// segments are the healthy (repaired) slice's, and one that meets a failed
// link detours as a whole (docs/collectives.md gives the measured cost).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "coll/internal/builder.h"
#include "topo/routing.h"

namespace podsim::coll::internal {
namespace {

// What each chip sends along each (dimension, displacement), in half-blocks;
// how long its receipts wait for the earlier segments' hops (the longest
// such wait among the routes through it); and the order in which the
// routes visit the dimensions.
struct Segments {
  using Key = std::pair<uint32_t, int64_t>;
  std::vector<uint32_t> order;
  std::map<Key, uint64_t> half_blocks;
  std::map<Key, sim::Time> delay;
  bool cycles = false;  // twisted dimensions run over their true cycles
};

sim::Time hop_latency(const topo::Pod& pod, uint32_t dim) {
  if (dim == topo::kSliceDim) {
    return pod.spec().dcn ? pod.spec().dcn->latency : sim::Time::zero();
  }
  return pod.spec().torus.dims[dim].hop_latency;
}

// The group is a subgroup of the twisted torus (so translations map it onto
// the other groups) when every dimension a twisted dimension of it shifts
// is also one of its dimensions.
bool closed_under_twists(const topo::Pod& pod, const std::vector<uint32_t>& dims) {
  for (const auto& t : pod.spec().torus.twists) {
    const bool has = std::find(dims.begin(), dims.end(), t.dim) != dims.end();
    if (has && std::find(dims.begin(), dims.end(), t.shift_dim) == dims.end()) {
      return false;
    }
  }
  return true;
}

// True when every route between two chips of the first group takes no
// twisted wrap link and never leaves the group, so the plain segments (the
// twisted dimensions as lines) load the links as the routes do. O(n^2 x
// hops) for groups of n chips (a few ms for 256).
bool routes_stay_on_lines(Builder& b, const topo::Pod& pod, uint32_t group_set) {
  const GroupSet& gs = b.plan().group_sets[group_set];
  const std::vector<topo::ChipId>& group = gs.groups.front();
  const uint32_t index = gs.group_of[group.front()];
  std::vector<topo::LinkId> route;
  for (const topo::ChipId src : group) {
    for (const topo::ChipId dst : group) {
      for (const topo::TieBreak way : {topo::TieBreak::kPlus, topo::TieBreak::kMinus}) {
        route.clear();
        topo::route_into(pod, src, dst, route, way);
        for (const topo::LinkId id : route) {
          const topo::Link& link = pod.link(id);
          if ((link.wrap && pod.twisted(link.dim)) || gs.group_of[link.dst] != index) {
            return false;
          }
        }
      }
    }
  }
  return true;
}

// Independent dimensions: per dimension, every displacement of the shorter
// way round (a tie split in half between +n/2 and -n/2) or, on a line (or a
// twisted dimension, whose routes inside a line never take the wrap), every
// offset, each carrying N / n_d blocks. The slices come last, one DCN hop to
// each counterpart.
Segments plain_segments(const Builder& b, const std::vector<uint32_t>& dims, uint64_t n) {
  const topo::Pod& pod = b.pod();
  Segments s;
  sim::Time before;
  for (const uint32_t d : dims) {
    s.order.push_back(d);
    const bool dcn = d == topo::kSliceDim;
    const auto size = static_cast<int64_t>(dcn ? pod.slice_count() : pod.dim_size(d));
    const uint64_t half = 2 * (n / static_cast<uint64_t>(size));
    const bool ring = !dcn && pod.wraparound(d) && !pod.twisted(d);
    int64_t longest = 0;
    for (int64_t t = -(size - 1); t <= size - 1; ++t) {
      if (t == 0 || (dcn && t < 0)) {
        continue;  // over DCN the offset is the slice index, one hop whatever it is
      }
      uint64_t blocks = half;
      if (ring && 2 * std::abs(t) > size) {
        continue;  // the other way round is shorter
      }
      if (ring && 2 * std::abs(t) == size) {
        blocks = half / 2;  // opposite: half of it each way
      }
      s.half_blocks[{d, t}] = blocks;
      s.delay[{d, t}] = before;
      longest = std::max(longest, dcn ? 1 : std::abs(t));
    }
    before += longest * hop_latency(pod, d);
  }
  return s;
}

// Twisted: the routes of the group's first chip to every other member, cut
// into runs along one dimension. nullopt when a route visits a dimension
// twice or turns outside the group.
std::optional<Segments> twisted_segments(Builder& b, const topo::Pod& pod, uint32_t group_set) {
  const GroupSet& gs = b.plan().group_sets[group_set];
  const std::vector<topo::ChipId>& group = gs.groups.front();
  const topo::ChipId src = group.front();
  const uint32_t group_index = gs.group_of[src];
  Segments s;
  for (const topo::ChipId dst : group) {
    if (dst == src) {
      continue;
    }
    const bool tie = topo::route_has_tie(pod, src, dst);
    for (const topo::TieBreak way : {topo::TieBreak::kPlus, topo::TieBreak::kMinus}) {
      if (way == topo::TieBreak::kMinus && !tie) {
        continue;
      }
      const std::vector<topo::LinkId> route = topo::route(pod, src, dst, way);
      std::vector<uint32_t> dims;
      topo::ChipId at = src;
      int64_t run = 0;
      sim::Time before;  // latency of this route's earlier segments
      for (size_t i = 0; i < route.size(); ++i) {
        const topo::Link& link = pod.link(route[i]);
        if (link.kind != topo::LinkKind::kIci) {
          return std::nullopt;
        }
        if (dims.empty() || dims.back() != link.dim) {
          if (std::find(dims.begin(), dims.end(), link.dim) != dims.end()) {
            return std::nullopt;  // a dimension visited twice
          }
          if (gs.group_of[at] != group_index) {
            return std::nullopt;  // a turn outside the group
          }
          dims.push_back(link.dim);
          run = 0;
        }
        run += link.direction;
        at = link.dst;
        const bool last = i + 1 == route.size() || pod.link(route[i + 1]).dim != link.dim;
        if (last) {
          const Segments::Key key{link.dim, run};
          s.half_blocks[key] += tie ? 1 : 2;
          s.delay[key] = std::max(s.delay[key], before);
          before += std::abs(run) * hop_latency(pod, link.dim);
        }
      }
      for (const uint32_t d : dims) {
        if (std::find(s.order.begin(), s.order.end(), d) == s.order.end()) {
          s.order.push_back(d);
        }
      }
    }
  }
  s.cycles = true;
  // The lanes are built dimension by dimension, twisted ones first as the
  // routes take them. Routes need not all visit the dimensions in one order:
  // every segment starts at once and waits, through its receipt delay, for
  // the earlier segments of every route through it.
  std::stable_sort(s.order.begin(), s.order.end(), [&pod](uint32_t l, uint32_t r) {
    return pod.twisted(l) != pod.twisted(r) ? pod.twisted(l) : l < r;
  });
  return s;
}

void lower_direct(Builder& b) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  const uint64_t n = plan.group_size;
  Phase ph;
  ph.pattern = Pattern::kDirect;
  ph.axis = join_names(c.axes);
  Lane lane;
  lane.group_set = b.axes_group_set(c.axes);
  lane.chunk_bytes = ceil_div(c.bytes, n * n);
  // Which blocks split between the two ways round (topo::route_has_tie):
  // what every run of the plan would otherwise ask for every pair.
  const topo::Pod& pod = b.pod();
  const GroupSet& gs = plan.group_sets[lane.group_set];
  ph.direct_ties_in.assign(pod.chip_count(), 0);
  ph.direct_ties_out.assign(pod.chip_count(), 0);
  for (const auto& group : gs.groups) {
    for (const topo::ChipId from : group) {
      for (const topo::ChipId to : group) {
        if (from != to && topo::route_has_tie(pod, from, to)) {
          ++ph.direct_ties_out[from];
          ++ph.direct_ties_in[to];
        }
      }
    }
  }
  ph.lanes = {lane};
  plan.shares.push_back(Share{{std::move(ph)}});
  plan.schedule = "direct exchange over " + join_names(c.axes, " ");
}

std::string label_of(Builder& b, uint32_t dim) {
  return dim == topo::kSliceDim ? "slice" : b.pod().spec().torus.dims[dim].name;
}

}  // namespace

void lower_all_to_all(Builder& b, bool direct) {
  const config::CollectiveSpec& c = b.collective();
  Plan& plan = b.plan();
  const topo::Pod& pod = b.pod();
  const uint64_t n = plan.group_size;
  std::vector<uint32_t> dims = b.ici_dims();
  if (!b.dcn_axes().empty() && pod.slice_count() > 1) {
    dims.push_back(topo::kSliceDim);
  }
  if (n <= 1) {
    plan.schedule = "nothing to do (one chip per group)";
    return;
  }
  const bool twisted = pod.has_twists();
  if (direct || (dims.size() <= 1 && !twisted)) {
    lower_direct(b);
    return;
  }
  // With failed links the segments are those of the routes the repaired
  // slice takes, and a segment whose walk meets a failed link takes the
  // pod's route around it (the executor falls back to topo::route), as
  // every segment does on an untwisted slice with faults: no N^2 exchange.
  std::optional<topo::Pod> repaired;
  if (twisted && pod.has_failed_links()) {
    repaired.emplace(pod.spec().without_faults());
  }
  const topo::Pod& routed = repaired ? *repaired : pod;
  // A group closed under the twists uses them (from one chip's shortest
  // routes). Another group's routes usually stay on its lines; when some do
  // not (crossing two twisted wraps whose shifts cancel), the exchange is
  // direct.
  std::optional<Segments> seg;
  if (twisted && closed_under_twists(pod, dims)) {
    seg = pod.slice_count() > 1 ? std::nullopt
                                : twisted_segments(b, routed, b.axes_group_set(c.axes));
  } else if (!twisted || routes_stay_on_lines(b, routed, b.axes_group_set(c.axes))) {
    seg = plain_segments(b, dims, n);
  }
  if (!seg) {
    lower_direct(b);
    return;
  }
  const uint64_t block = ceil_div(c.bytes, n * n);
  const bool sequential = c.algorithm == config::CollectiveAlgorithm::kSequentialAxes;
  std::string labels;
  Share share;
  for (const uint32_t d : seg->order) {
    Phase ph;
    ph.pattern = Pattern::kShift;
    ph.axis = label_of(b, d);
    labels += (labels.empty() ? "" : " > ") + label_of(b, d);
    // Farthest segments first: a chip's DMA issues the transfers with the
    // most hops to cross before the near ones, so on a link shared first come
    // first served the last bytes to land are those with the fewest hops left.
    std::vector<std::pair<int64_t, uint64_t>> moves;  // (displacement, half-blocks)
    for (const auto& [key, halves] : seg->half_blocks) {
      if (key.first == d) {
        moves.emplace_back(key.second, halves);
      }
    }
    std::stable_sort(moves.begin(), moves.end(), [](const auto& l, const auto& r) {
      return std::abs(l.first) > std::abs(r.first) ||
             (std::abs(l.first) == std::abs(r.first) && l.first > r.first);
    });
    const bool dcn = d == topo::kSliceDim;
    // A twisted dimension's segments run along its true cycle where the
    // routes take the twisted wraps, along its lines otherwise.
    const bool line = !dcn && (!pod.wraparound(d) || (pod.twisted(d) && !seg->cycles));
    for (const auto& [t, halves] : moves) {
      Lane lane;
      lane.group_set = seg->cycles && !dcn ? b.cycle_group_set(d) : b.dim_group_set(d);
      lane.wraps = !line;
      lane.walk_dim = dcn ? kNoWalk : static_cast<int32_t>(d);
      lane.chunk_bytes = ceil_div(halves * block, 2);
      lane.shift = static_cast<int32_t>(t);
      lane.receipt_delay = sequential ? sim::Time::zero() : seg->delay.at({d, t});
      ph.lanes.push_back(lane);
    }
    if (sequential || share.phases.empty()) {
      share.phases.push_back(std::move(ph));
    } else {
      auto& lanes = share.phases.back().lanes;
      lanes.insert(lanes.end(), ph.lanes.begin(), ph.lanes.end());
      share.phases.back().axis += "," + ph.axis;
    }
  }
  plan.shares.push_back(std::move(share));
  plan.schedule =
      std::string(sequential ? "dimension-ordered segments, one dimension after another: "
                             : "dimension-ordered segments: ") +
      labels + (seg->cycles ? " (through the twisted links)" : "");
}

}  // namespace podsim::coll::internal
