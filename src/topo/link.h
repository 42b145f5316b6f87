// Identifiers and the link record shared by the topo layer and its users.
//
// A pod is a directed graph: vertices are chips (ids 0 .. chip_count()-1) plus,
// when the pod has several slices, one vertex for the data-center network fabric
// (id chip_count()). Every edge is a one-way Link with its own LinkId, so the
// network model can keep per-link state in a flat vector indexed by LinkId.
#pragma once

#include <cstdint>
#include <limits>

#include "sim/time.h"

namespace podsim::topo {

using ChipId = uint32_t;
using LinkId = uint32_t;
// A vertex of the pod graph: a chip id, or Pod::dcn_switch().
using VertexId = uint32_t;

// Stands for "the slice dimension" wherever a torus dimension index is
// expected: the `dim` of DCN links and a mesh axis spanning slices.
inline constexpr uint32_t kSliceDim = std::numeric_limits<uint32_t>::max();

enum class LinkKind : uint8_t {
  kIci,      // chip to chip along one torus dimension
  kDcnUp,    // chip to the DCN fabric vertex
  kDcnDown,  // DCN fabric vertex to chip
};

struct Link {
  VertexId src = 0;
  VertexId dst = 0;
  LinkKind kind = LinkKind::kIci;
  uint32_t dim = 0;          // torus dimension; kSliceDim for DCN links
  int8_t direction = 0;      // +1 or -1 along `dim` for ICI links; 0 for DCN
  bool wrap = false;         // ICI link from coordinate size-1 to 0 (+) or 0 to size-1 (-)
  sim::Bandwidth bandwidth;  // one way, as published (calibration is the network's business)
  // ICI: the dimension's hop latency. DCN: the spec's end-to-end latency on the
  // up link and zero on the down link, so a route through the fabric pays it once.
  sim::Time latency;
};

}  // namespace podsim::topo
