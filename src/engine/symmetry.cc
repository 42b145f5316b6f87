#include "engine/symmetry.h"

#include <numeric>
#include <utility>

#include "coll/symmetry.h"
#include "topo/shape.h"

namespace podsim::engine {
namespace {

constexpr const char* kNeedsFlowOrAnalytical =
    "symmetric runs need the flow or the analytical network model";

// The fewest hops along `dim` whose translation (one hop: `unit`) keeps
// every plan: the least common multiple of their periods, the dimension's
// size when no shorter one does.
uint32_t common_period(const topo::Pod& pod, std::span<const coll::Plan* const> plans, uint32_t dim,
                       const std::vector<topo::ChipId>& unit) {
  const uint32_t n = pod.dim_size(dim);
  uint32_t period = 1;
  for (const coll::Plan* plan : plans) {
    period = std::lcm(period, coll::plan_period(pod, *plan, dim, unit));
    if (period >= n) {
      return n;
    }
  }
  return period;
}

}  // namespace

std::optional<std::string> why_never_symmetric(const topo::Pod& pod, const net::Options& network) {
  if (network.model == net::Model::kPacket) {
    return kNeedsFlowOrAnalytical;
  }
  if (pod.has_faults()) {
    return "the pod has faults";
  }
  return std::nullopt;
}

SymmetryChoice choose_symmetry(const topo::Pod& pod, std::span<const coll::Plan* const> plans,
                               const net::Options& network, const std::vector<bool>& movable) {
  SymmetryChoice out;
  if (auto why = why_never_symmetric(pod, network)) {
    out.why_full = std::move(*why);
    return out;
  }
  std::vector<topo::Translation> generators;
  std::vector<std::vector<topo::ChipId>> units;  // each generator's one-hop translation
  bool any_translation = false;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const uint32_t n = pod.dim_size(d);
    if (d >= movable.size() || !movable[d] || n <= 1) {
      continue;  // folded away
    }
    auto unit = topo::translate(pod, topo::Translation{d, 1});
    if (!unit) {
      continue;  // a line
    }
    any_translation = true;
    const uint32_t period = common_period(pod, plans, d, *unit);
    if (period < n) {
      generators.push_back(topo::Translation{d, period});
      units.push_back(std::move(*unit));
    }
  }
  if (generators.empty()) {
    out.why_full = any_translation ? "no translation of the torus keeps every collective"
                                   : "no dimension wraps around (no translation maps the pod "
                                     "onto itself)";
    return out;
  }
  out.classes = topo::SymmetryClasses::make(pod, generators, units);
  if (!out.classes) {
    out.why_full = "the torus's translations do not keep its links";
  }
  return out;
}

namespace {

// The group's one-hop move along `dim` as a chip permutation, what
// keeps_plan checks a plan against: each moved chip goes to the chip one hop
// along by coordinates (untwisted), every other chip stays. The moved chips
// are a replica, whose chips span `dim`, so they map onto themselves.
std::vector<topo::ChipId> shift_within(const topo::Pod& pod, uint32_t dim,
                                       const std::vector<uint8_t>& moved) {
  const topo::Shape& shape = pod.shape();
  const uint32_t n = shape.dim_size(dim);
  const uint32_t stride = shape.stride(dim);
  std::vector<topo::ChipId> map(pod.chip_count());
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    const uint32_t at = shape.coord(c, dim);
    map[c] = moved[c] == 0 ? c : c - at * stride + ((at + 1) % n) * stride;
  }
  return map;
}

}  // namespace

SymmetryChoice choose_symmetry_within(const topo::Pod& pod,
                                      std::span<const coll::Plan* const> plans,
                                      const net::Options& network, const std::vector<bool>& movable,
                                      const std::vector<uint8_t>& moved) {
  SymmetryChoice out;
  if (network.model == net::Model::kPacket) {
    out.why_full = kNeedsFlowOrAnalytical;
    return out;
  }
  if (pod.slice_count() != 1 || pod.has_twists()) {
    out.why_full = "the pod has faults";
    return out;
  }
  std::vector<topo::Translation> generators;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const uint32_t n = pod.dim_size(d);
    if (d >= movable.size() || !movable[d] || n <= 1 || !pod.wraparound(d)) {
      continue;
    }
    const uint32_t period = common_period(pod, plans, d, shift_within(pod, d, moved));
    if (period < n) {
      generators.push_back(topo::Translation{d, period});
    }
  }
  if (!generators.empty()) {
    out.classes = topo::SymmetryClasses::make_within(pod, generators, moved);
  }
  if (!out.classes) {
    out.why_full = "the pod has faults, and no translation keeps the healthy replica's collectives";
  }
  return out;
}

net::LinkStats unfold_classes(const topo::SymmetryClasses& classes, net::LinkStats stats) {
  // In place: a class's representative is its smallest LinkId and keeps its
  // own figures, so every link reads a representative's, never a copy.
  for (size_t l = 0; l < stats.bytes.size(); ++l) {
    const topo::LinkId rep = classes.rep_link(static_cast<topo::LinkId>(l));
    stats.bytes[l] = stats.bytes[rep];
    stats.busy[l] = stats.busy[rep];
  }
  return stats;
}

std::string describe(const topo::Pod& pod, const SymmetryChoice& choice) {
  if (choice.classes) {
    return choice.classes->describe(pod);
  }
  return choice.why_full;
}

}  // namespace podsim::engine
