#include "torus_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

namespace podsim::topo::testing {

const std::vector<ShapeCase>& standard_shapes() {
  static const std::vector<ShapeCase> kShapes = {
      {"ring8", {{8, true}}, 16},
      {"line8", {{8, false}}, 14},
      {"torus4x4", {{4, true}, {4, true}}, 4 * 16},
      {"mesh4x4", {{4, false}, {4, false}}, 2 * 2 * 4 * 3},
      {"mixed8x16", {{8, false}, {16, true}}, 16 * 2 * 7 + 8 * 2 * 16},
      {"torus4x4x4", {{4, true}, {4, true}, {4, true}}, 3 * 2 * 64},
      {"mixed3x4x5", {{3, true}, {4, false}, {5, true}}, 20 * 6 + 15 * 6 + 12 * 10},
      {"flat1x4", {{1, false}, {4, true}}, 8},
  };
  return kShapes;
}

config::PodSpec torus_spec(const std::vector<Dim>& dims, double link_gbps) {
  static constexpr const char* kNames[] = {"x", "y", "z", "w"};
  config::PodSpec spec;
  spec.name = "test-torus";
  spec.source_file = "<test>";
  spec.chip.name = "test-chip";
  for (size_t i = 0; i < dims.size(); ++i) {
    config::DimensionSpec d;
    d.name = i < 4 ? kNames[i] : "d";
    if (i >= 4)
      d.name += std::to_string(i);
    d.size = dims[i].size;
    d.wraparound = dims[i].wrap;
    d.link_bandwidth = sim::Bandwidth::from_gbps(link_gbps);
    d.hop_latency = sim::Time::us(1);
    spec.torus.dims.push_back(d);
  }
  return spec;
}

config::PodSpec with_slices(config::PodSpec spec, uint32_t slices, double dcn_gbps_per_chip) {
  spec.slices = slices;
  spec.dcn = config::DcnSpec{sim::Bandwidth::from_gbps(dcn_gbps_per_chip), sim::Time::us(10)};
  return spec;
}

config::PodSpec with_failed_link(config::PodSpec spec, std::vector<uint32_t> coords, uint32_t dim,
                                 int direction, uint32_t slice) {
  spec.failed_links.push_back(config::FailedLinkSpec{slice, std::move(coords), dim, direction});
  return spec;
}

ReferenceTorus::ReferenceTorus(const config::PodSpec& spec) : spec_(spec), slices_(spec.slices) {
  for (const auto& d : spec_.torus.dims)
    per_slice_ *= d.size;
}

uint32_t ReferenceTorus::id(uint32_t slice, const std::vector<uint32_t>& coords) const {
  uint32_t local = 0;
  for (size_t d = coords.size(); d > 0; --d)
    local = local * spec_.torus.dims[d - 1].size + coords[d - 1];
  return slice * per_slice_ + local;
}

std::vector<uint32_t> ReferenceTorus::coords(uint32_t chip) const {
  std::vector<uint32_t> c;
  uint32_t local = chip % per_slice_;
  for (const auto& d : spec_.torus.dims) {
    c.push_back(local % d.size);
    local /= d.size;
  }
  return c;
}

int64_t ReferenceTorus::wired_neighbour(uint32_t chip, uint32_t dim, int direction) const {
  const auto& d = spec_.torus.dims[dim];
  if (d.size < 2)
    return -1;
  std::vector<uint32_t> c = coords(chip);
  const int64_t next = static_cast<int64_t>(c[dim]) + direction;
  if (next >= 0 && next < d.size) {
    c[dim] = static_cast<uint32_t>(next);
    return id(slice(chip), c);
  }
  if (!d.wraparound)
    return -1;
  c[dim] = direction > 0 ? 0 : d.size - 1;
  for (const auto& t : spec_.torus.twists) {
    if (t.dim != dim)
      continue;
    const int64_t n = spec_.torus.dims[t.shift_dim].size;
    const int64_t moved = static_cast<int64_t>(c[t.shift_dim]) + direction * int64_t{t.offset};
    c[t.shift_dim] = static_cast<uint32_t>(((moved % n) + n) % n);
  }
  return id(slice(chip), c);
}

bool ReferenceTorus::failed(uint32_t chip, uint32_t dim, int direction) const {
  for (const auto& f : spec_.failed_links) {
    if (f.dim != dim)
      continue;
    const uint32_t a = id(f.slice, f.coords);
    const int64_t b = wired_neighbour(a, f.dim, f.direction);
    if ((chip == a && direction == f.direction) || (chip == b && direction == -f.direction)) {
      return true;
    }
  }
  return false;
}

int64_t ReferenceTorus::neighbour(uint32_t chip, uint32_t dim, int direction) const {
  if (failed(chip, dim, direction))
    return -1;
  return wired_neighbour(chip, dim, direction);
}

std::vector<int64_t> ReferenceTorus::distances_from(uint32_t chip) const {
  std::vector<int64_t> dist(chip_count(), -1);
  std::deque<uint32_t> queue{chip};
  dist[chip] = 0;
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    for (uint32_t dim = 0; dim < spec_.torus.dims.size(); ++dim) {
      for (const int direction : {+1, -1}) {
        const int64_t v = neighbour(u, dim, direction);
        if (v >= 0 && dist[v] < 0) {
          dist[v] = dist[u] + 1;
          queue.push_back(static_cast<uint32_t>(v));
        }
      }
    }
  }
  return dist;
}

int64_t ReferenceTorus::diameter() const {
  int64_t worst = 0;
  for (uint32_t a = 0; a < chip_count(); ++a) {
    const std::vector<int64_t> dist = distances_from(a);
    for (uint32_t b = 0; b < chip_count(); ++b) {
      if (slice(b) != slice(a))
        continue;
      if (dist[b] < 0)
        return -1;
      worst = std::max(worst, dist[b]);
    }
  }
  return worst;
}

void expect_walk(const Pod& pod, ChipId src, ChipId dst, const std::vector<LinkId>& path) {
  VertexId at = src;
  for (const LinkId id : path) {
    ASSERT_EQ(pod.link(id).src, at) << src << "->" << dst;
    at = pod.link(id).dst;
  }
  EXPECT_EQ(at, dst) << src << "->" << dst;
}

}  // namespace podsim::topo::testing
