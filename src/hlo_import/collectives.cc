// Collectives: an HLO collective's device groups onto torus dimensions, and
// its bytes V as workload.proto counts them.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hlo/analysis.h"
#include "hlo/replica_groups.h"
#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {
namespace {

using hlo::Opcode;

// The podsim kind of a collective opcode (an async start's wrapped root for
// async-start).
std::optional<config::CollectiveKind> kind_of(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return config::CollectiveKind::kAllReduce;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return config::CollectiveKind::kAllGather;
    case Opcode::kReduceScatter:
      return config::CollectiveKind::kReduceScatter;
    case Opcode::kAllToAll:
      return config::CollectiveKind::kAllToAll;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return config::CollectiveKind::kPermute;
    case Opcode::kCollectiveBroadcast:
      return config::CollectiveKind::kBroadcast;
    default:
      return std::nullopt;
  }
}

// The smallest whole number of bytes holding whole elements (int4: 1).
uint64_t unit_bytes(config::DType t) {
  return t == config::DType::kInt4 ? 1 : static_cast<uint64_t>(config::bytes_per_element(t));
}

// The dimensions a chip has coordinates along: the torus's, then the slice.
std::vector<uint32_t> pod_dims(const topo::Pod& pod) {
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    dims.push_back(d);
  }
  if (pod.slice_count() > 1) {
    dims.push_back(topo::kSliceDim);
  }
  return dims;
}

std::string axis_name(const topo::Pod& pod, uint32_t dim) {
  return dim == topo::kSliceDim ? std::string(config::kSliceDimName)
                                : pod.spec().torus.dims[dim].name;
}

std::string groups_text(const std::vector<std::vector<int64_t>>& groups) {
  std::string s = "{";
  for (size_t g = 0; g < groups.size() && g < 8; ++g) {
    s += g == 0 ? "{" : ",{";
    for (size_t i = 0; i < groups[g].size() && i < 16; ++i) {
      if (i != 0) {
        s += ",";
      }
      s += std::to_string(groups[g][i]);
    }
    s += groups[g].size() > 16 ? ",...}" : "}";
  }
  s += groups.size() > 8 ? ",...}" : "}";
  return s;
}

config::ChipCoords coords_of(const topo::Pod& pod, topo::ChipId chip) {
  config::ChipCoords c;
  c.slice = pod.slice_of(chip);
  c.coords = pod.coords(chip);
  return c;
}

uint32_t coord_along(const topo::Pod& pod, topo::ChipId chip, uint32_t dim) {
  return pod.coord(chip, dim);
}

// The permute's pairs of chips (self pairs dropped), for every replica or
// partition the mode repeats them over.
std::vector<std::pair<topo::ChipId, topo::ChipId>> permute_pairs(const hlo::Module& module,
                                                                 const hlo::Instruction& permute,
                                                                 const hlo::Instruction& at,
                                                                 const DeviceMap& devices) {
  const int64_t r = devices.replicas();
  const int64_t p = devices.partitions();
  const bool cross_partition = permute.channel_id.has_value();
  const int64_t limit = cross_partition ? p : r;
  std::vector<std::pair<topo::ChipId, topo::ChipId>> pairs;
  if (!permute.extra) {
    return pairs;
  }
  for (const auto& [s, t] : permute.extra->source_target_pairs) {
    if (s < 0 || t < 0 || s >= limit || t >= limit) {
      fail(module, at,
           "source_target_pairs names " + std::string(cross_partition ? "partition" : "replica") +
               " {" + std::to_string(s) + "," + std::to_string(t) + "}, outside 0 to " +
               std::to_string(limit - 1));
    }
    for (int64_t o = 0; o < (cross_partition ? r : p); ++o) {
      const int64_t src = cross_partition ? o * p + s : s * p + o;
      const int64_t dst = cross_partition ? o * p + t : t * p + o;
      if (src != dst) {
        pairs.emplace_back(devices.chip(src), devices.chip(dst));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// Every chip c sends to c + shift along `dim`: wrapping when `wrap`, else
// only the chips with such a neighbour.
std::vector<std::pair<topo::ChipId, topo::ChipId>> shift_pairs(const topo::Pod& pod, uint32_t dim,
                                                               int64_t shift, bool wrap) {
  std::vector<std::pair<topo::ChipId, topo::ChipId>> pairs;
  const int64_t n = pod.dim_size(dim);
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    const int64_t from = coord_along(pod, c, dim);
    int64_t to = from + shift;
    if (to < 0 || to >= n) {
      if (!wrap) {
        continue;
      }
      to = ((to % n) + n) % n;
    }
    std::vector<uint32_t> coords = pod.coords(c);
    uint32_t slice = pod.slice_of(c);
    if (dim == topo::kSliceDim) {
      slice = static_cast<uint32_t>(to);
    } else {
      coords[dim] = static_cast<uint32_t>(to);
    }
    pairs.emplace_back(c, pod.chip_at(slice, coords));
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// A uniform shift along one dimension, when the pairs are exactly one.
std::optional<config::CollectiveSpec> as_shift(
    const topo::Pod& pod, const std::vector<std::pair<topo::ChipId, topo::ChipId>>& pairs) {
  std::optional<uint32_t> dim;
  for (const uint32_t d : pod_dims(pod)) {
    if (coord_along(pod, pairs[0].first, d) != coord_along(pod, pairs[0].second, d)) {
      if (dim) {
        return std::nullopt;  // moves along two dimensions
      }
      dim = d;
    }
  }
  if (!dim) {
    return std::nullopt;
  }
  const int64_t n = pod.dim_size(*dim);
  const int64_t raw = static_cast<int64_t>(coord_along(pod, pairs[0].second, *dim)) -
                      static_cast<int64_t>(coord_along(pod, pairs[0].first, *dim));
  const bool torus_wraps = *dim != topo::kSliceDim && pod.wraparound(*dim);
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kPermute;
  c.axes = {axis_name(pod, *dim)};
  // As written (the shift podsim's permute makes over this dimension), then
  // as a cycle of the whole dimension, for lines (cyclic).
  if (shift_pairs(pod, *dim, raw, torus_wraps) == pairs) {
    c.shift = static_cast<int32_t>(raw);
    return c;
  }
  int64_t cycle = ((raw % n) + n) % n;
  if (cycle > n / 2) {
    cycle -= n;
  }
  if (cycle != 0 && shift_pairs(pod, *dim, cycle, true) == pairs) {
    c.shift = static_cast<int32_t>(cycle);
    c.cyclic = !torus_wraps;
    return c;
  }
  return std::nullopt;
}

}  // namespace

config::DType dtype_of(hlo::PrimitiveType type) {
  switch (type) {
    case hlo::PrimitiveType::kF8E3M4:
    case hlo::PrimitiveType::kF8E4M3:
    case hlo::PrimitiveType::kF8E4M3FN:
    case hlo::PrimitiveType::kF8E4M3B11FNUZ:
    case hlo::PrimitiveType::kF8E4M3FNUZ:
    case hlo::PrimitiveType::kF8E5M2:
    case hlo::PrimitiveType::kF8E5M2FNUZ:
    case hlo::PrimitiveType::kF8E8M0FNU:
      return config::DType::kFp8;
    default:
      break;
  }
  const int bits = hlo::primitive_type_bits(type);
  if (bits >= 32) {
    return config::DType::kFp32;
  }
  if (bits == 16) {
    return config::DType::kBf16;
  }
  if (bits == 8) {
    return config::DType::kInt8;
  }
  return bits == 0 ? config::DType::kBf16 : config::DType::kInt4;
}

std::vector<config::MeshAxisDecl> pod_mesh(const topo::Pod& pod) {
  std::vector<config::MeshAxisDecl> mesh;
  for (const uint32_t d : pod_dims(pod)) {
    mesh.push_back(config::MeshAxisDecl{axis_name(pod, d),
                                        {d == topo::kSliceDim ? config::kSliceDimIndex : d}});
  }
  return mesh;
}

std::vector<std::vector<int64_t>> collective_device_groups(const hlo::Module& module,
                                                           const hlo::Instruction& collective,
                                                           const hlo::Instruction& at) {
  const bool has_field = hlo::has_use_global_device_ids_field(collective.opcode);
  const auto mode = hlo::group_mode(
      collective.channel_id.has_value(),
      has_field ? std::optional(collective.use_global_device_ids.value_or(false)) : std::nullopt);
  if (!mode) {
    fail(module, at, "use_global_device_ids=true needs a channel_id (XLA refuses it without one)");
  }
  const hlo::ReplicaGroups none;
  const hlo::ReplicaGroups& groups = collective.extra && collective.extra->replica_groups
                                         ? *collective.extra->replica_groups
                                         : none;
  auto devices = hlo::device_groups(groups, *mode, module.replica_count, module.num_partitions);
  if (!devices) {
    fail(module, at,
         "replica_groups name an id outside the module's " + std::to_string(module.replica_count) +
             " replicas x " + std::to_string(module.num_partitions) + " partitions");
  }
  return std::move(*devices);
}

std::optional<uint64_t> collective_bytes(const hlo::Computation& computation,
                                         const hlo::Instruction& collective, uint64_t group_size) {
  const auto kind = kind_of(collective.opcode);
  const bool permute = kind == config::CollectiveKind::kPermute;
  if (kind == config::CollectiveKind::kAllGather) {
    // The gathered result: the shape, or the results half of an
    // all-gather-start's (operands..., results...) tuple.
    const hlo::Shape& s = collective.shape;
    std::optional<int64_t> b = 0;
    if (!s.is_tuple()) {
      b = hlo::byte_size(s);
    }
    for (size_t i = s.elements.size() / 2; s.is_tuple() && i < s.elements.size() && b; ++i) {
      const auto e = hlo::byte_size(s.elements[i]);
      b = e ? std::optional<int64_t>(*b + *e) : std::nullopt;
    }
    return b ? std::optional<uint64_t>(static_cast<uint64_t>(*b)) : std::nullopt;
  }
  uint64_t bytes = 0;
  for (size_t i = 0; i < collective.operands.size() && (!permute || i == 0); ++i) {
    const auto b = hlo::byte_size(computation.operand(collective, i).shape);
    if (!b) {
      return std::nullopt;
    }
    bytes += static_cast<uint64_t>(*b);
  }
  if (kind == config::CollectiveKind::kAllToAll) {
    bytes *= group_size;
  }
  return bytes;
}

std::optional<config::CollectiveSpec> collective_spec(const hlo::Module& module,
                                                      const hlo::Computation& computation,
                                                      const hlo::Instruction& collective,
                                                      const hlo::Instruction& at,
                                                      const DeviceMap& devices,
                                                      const topo::Pod& pod) {
  const auto kind = kind_of(collective.opcode);
  if (!kind) {
    fail(module, at,
         "'" + std::string(collective.opcode_name) + "' is not a collective podsim runs");
  }
  const hlo::PrimitiveType element = collective.operands.empty()
                                         ? hlo::PrimitiveType::kBF16
                                         : computation.operand(collective, 0).shape.type;
  if (*kind == config::CollectiveKind::kPermute) {
    const auto pairs = permute_pairs(module, collective, at, devices);
    if (pairs.empty()) {
      return std::nullopt;
    }
    const auto bytes = collective_bytes(computation, collective, 1);
    if (!bytes) {
      fail(module, at, "an unbounded dynamic shape has no byte size");
    }
    if (*bytes == 0) {
      return std::nullopt;
    }
    std::optional<config::CollectiveSpec> c = as_shift(pod, pairs);
    if (!c) {
      c.emplace();
      c->kind = config::CollectiveKind::kSend;
      for (const auto& [s, t] : pairs) {
        c->pairs.push_back(config::ChipPair{coords_of(pod, s), coords_of(pod, t)});
      }
    }
    c->bytes = *bytes;
    c->dtype = dtype_of(element);
    return c;
  }
  const auto groups = collective_device_groups(module, collective, at);
  const auto refuse = [&](const std::string& why) {
    std::string m = "replica groups ";
    m += groups_text(groups);
    m += " (devices) are not the groups of a set of torus dimensions of pod '";
    m += pod.spec().name;
    m += "' (";
    m += why;
    m += "); podsim runs a collective over whole torus dimensions only (docs/hlo.md, ";
    m += "\"Running a module\")";
    fail(module, at, m);
  };
  std::set<uint32_t> varying;
  for (const auto& g : groups) {
    for (const int64_t d : g) {
      for (const uint32_t dim : pod_dims(pod)) {
        if (coord_along(pod, devices.chip(d), dim) != coord_along(pod, devices.chip(g[0]), dim)) {
          varying.insert(dim);
        }
      }
    }
  }
  uint64_t size = 1;
  for (const uint32_t dim : varying) {
    size *= pod.dim_size(dim);
  }
  std::vector<bool> seen(pod.chip_count(), false);
  for (const auto& g : groups) {
    if (g.size() != size) {
      refuse("a group of " + std::to_string(g.size()) + " where its dimensions make groups of " +
             std::to_string(size));
    }
    for (const int64_t d : g) {
      if (seen[devices.chip(d)]) {
        refuse("device " + std::to_string(d) + " is in two groups");
      }
      seen[devices.chip(d)] = true;
    }
  }
  if (groups.size() * size != pod.chip_count()) {
    refuse("the groups leave chips out");
  }
  if (size <= 1) {
    return std::nullopt;
  }
  const auto bytes = collective_bytes(computation, collective, size);
  if (!bytes) {
    fail(module, at, "an unbounded dynamic shape has no byte size");
  }
  if (*bytes == 0) {
    return std::nullopt;
  }
  config::CollectiveSpec c;
  c.kind = *kind;
  c.dtype = dtype_of(element);
  for (const uint32_t dim : pod_dims(pod)) {
    if (varying.count(dim) != 0) {
      c.axes.push_back(axis_name(pod, dim));
    }
  }
  // Whole elements in whole pieces (one per chip; per pair for all-to-all):
  // padded up, as XLA pads an uneven shard.
  uint64_t quantum = unit_bytes(c.dtype);
  if (c.kind != config::CollectiveKind::kBroadcast) {
    quantum *= c.kind == config::CollectiveKind::kAllToAll ? size * size : size;
  }
  c.bytes = (*bytes + quantum - 1) / quantum * quantum;
  return c;
}

}  // namespace podsim::hlo_import::internal
