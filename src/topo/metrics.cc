#include "topo/metrics.h"

#include <algorithm>
#include <map>

#include "topo/ici_bfs.h"

namespace podsim::topo {
namespace {

uint32_t plain_torus_diameter(const Pod& pod) {
  uint32_t hops = 0;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    hops += pod.wraparound(d) ? pod.dim_size(d) / 2 : pod.dim_size(d) - 1;
  }
  return hops;
}

bool twisted_torus_is_vertex_transitive(const Pod& pod) {
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    if (pod.dim_size(d) >= 2 && !pod.wraparound(d))
      return false;
  }
  const auto& twists = pod.spec().torus.twists;
  return std::none_of(twists.begin(), twists.end(), [&twists](const config::TwistSpec& t) {
    return std::any_of(twists.begin(), twists.end(),
                       [&t](const config::TwistSpec& u) { return u.dim == t.shift_dim; });
  });
}

// Largest BFS distance from `sources` live chips (the first ones of the
// slice) to any live chip of the slice; nullopt if some live chip is
// unreachable. Dead chips are neither sources nor targets: nothing routes
// to them, and routes around them are what the BFS measures.
std::optional<uint32_t> slice_diameter_by_bfs(const Pod& pod, uint32_t slice, uint32_t sources) {
  const ChipId first = slice * pod.shape().chips_per_slice();
  const ChipId end = first + pod.shape().chips_per_slice();
  detail::BfsTree tree;
  uint32_t diameter = 0;
  uint32_t searched = 0;
  for (ChipId src = first; src < end && searched < sources; ++src) {
    if (pod.is_dead(src))
      continue;
    ++searched;
    detail::ici_bfs(pod, src, tree);
    for (ChipId c = first; c < end; ++c) {
      if (pod.is_dead(c))
        continue;
      if (tree.dist[c] == detail::kUnreached)
        return std::nullopt;
      diameter = std::max(diameter, tree.dist[c]);
    }
  }
  return diameter;
}

// Capacity of the directed links from side A = {(coord_dim - offset) mod
// size < size/2} to the rest: the half cut rotated by `offset` positions.
BisectionCut dimension_cut(const Pod& pod, uint32_t dim, uint32_t offset) {
  const uint32_t size = pod.dim_size(dim);
  const uint32_t half = size / 2;
  const auto side_a = [&](VertexId chip) {
    return (pod.coord(chip, dim) + size - offset) % size < half;
  };
  BisectionCut cut{dim, 0, {}, offset};
  uint64_t bytes_per_s = 0;
  for (const Link& l : pod.links()) {
    if (l.kind != LinkKind::kIci)
      continue;
    if (side_a(l.src) && !side_a(l.dst)) {
      ++cut.links;
      bytes_per_s += l.bandwidth.bytes_per_s();
    }
  }
  cut.bandwidth = sim::Bandwidth::bytes_per_s(bytes_per_s);
  return cut;
}

BisectionCut slice_cut(const Pod& pod) {
  const ChipId boundary = pod.slice_count() / 2 * pod.shape().chips_per_slice();
  uint64_t up_a = 0;
  uint64_t down_b = 0;
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    if (c < boundary) {
      up_a += pod.link(pod.dcn_up(c)).bandwidth.bytes_per_s();
    } else {
      down_b += pod.link(pod.dcn_down(c)).bandwidth.bytes_per_s();
    }
  }
  if (up_a <= down_b)
    return {kSliceDim, boundary, sim::Bandwidth::bytes_per_s(up_a), 0};
  return {kSliceDim, pod.chip_count() - boundary, sim::Bandwidth::bytes_per_s(down_b), 0};
}

}  // namespace

std::optional<uint32_t> diameter_hops(const Pod& pod) {
  std::vector<bool> slice_has_failure(pod.slice_count(), false);
  for (const auto& f : pod.spec().failed_links)
    slice_has_failure[f.slice] = true;
  // A dead chip's links are gone too: its slice is no longer the closed form's.
  for (const auto& d : pod.spec().dead_chips)
    slice_has_failure[d.slice] = true;
  const uint32_t per_slice = pod.shape().chips_per_slice();

  std::optional<uint32_t> intact;  // diameter of a slice without failed links
  uint32_t diameter = 0;
  for (uint32_t s = 0; s < pod.slice_count(); ++s) {
    std::optional<uint32_t> d;
    if (slice_has_failure[s]) {
      d = slice_diameter_by_bfs(pod, s, per_slice);
    } else {
      if (!intact) {
        if (!pod.has_twists()) {
          intact = plain_torus_diameter(pod);
        } else {
          const bool one = twisted_torus_is_vertex_transitive(pod);
          intact = slice_diameter_by_bfs(pod, s, one ? 1 : per_slice);
        }
      }
      d = intact;
    }
    if (!d)
      return std::nullopt;
    diameter = std::max(diameter, *d);
  }
  return diameter;
}

ChipIciBandwidth chip_ici_bandwidth(const Pod& pod) {
  std::vector<uint64_t> per_chip(pod.chip_count(), 0);
  for (const Link& l : pod.links()) {
    if (l.kind != LinkKind::kIci)
      continue;
    per_chip[l.src] += l.bandwidth.bytes_per_s();
    per_chip[l.dst] += l.bandwidth.bytes_per_s();
  }
  std::map<uint64_t, uint32_t> histogram;
  for (const uint64_t b : per_chip)
    ++histogram[b];
  uint64_t typical = 0;
  uint32_t most = 0;
  for (const auto& [b, count] : histogram) {  // ascending, so >= keeps the larger on a tie
    if (count >= most) {
      typical = b;
      most = count;
    }
  }
  return {sim::Bandwidth::bytes_per_s(typical),
          sim::Bandwidth::bytes_per_s(histogram.begin()->first),
          sim::Bandwidth::bytes_per_s(histogram.rbegin()->first)};
}

std::vector<AxisBandwidth> axis_bandwidths(const Pod& pod) {
  std::vector<AxisBandwidth> axes;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const auto& spec = pod.spec().torus.dims[d];
    const uint64_t ports = spec.size >= 3 ? 2 : spec.size - 1;
    axes.push_back({d, spec.name, spec.size, spec.wraparound, spec.link_bandwidth,
                    sim::Bandwidth::bytes_per_s(ports * spec.link_bandwidth.bytes_per_s())});
  }
  return axes;
}

std::optional<BisectionCut> bisection(const Pod& pod) {
  std::optional<BisectionCut> best;
  auto consider = [&best](const BisectionCut& cut) {
    if (!best || cut.bandwidth < best->bandwidth)
      best = cut;
  };
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    if (pod.dim_size(d) < 2)
      continue;
    consider(dimension_cut(pod, d, 0));
    // On a ring every rotation of the half cut is balanced; with faults one
    // of them can be the worst (a failed link off the middle). Without
    // faults they are all alike, by symmetry. A line has its middle cut only.
    if (pod.wraparound(d) && pod.has_faults()) {
      for (uint32_t offset = 1; offset < pod.dim_size(d); ++offset)
        consider(dimension_cut(pod, d, offset));
    }
  }
  if (pod.has_dcn())
    consider(slice_cut(pod));
  return best;
}

}  // namespace podsim::topo
