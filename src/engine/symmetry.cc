#include "engine/symmetry.h"

#include <numeric>
#include <utility>

#include "coll/symmetry.h"

namespace podsim::engine {

std::optional<std::string> why_never_symmetric(const topo::Pod& pod, const net::Options& network) {
  if (network.model == net::Model::kPacket) {
    return "symmetric runs need the flow or the analytical network model";
  }
  if (pod.slice_count() != 1) {
    return "the pod has several slices";
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
  bool any_translation = false;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    const uint32_t n = pod.dim_size(d);
    if (d >= movable.size() || !movable[d] || n <= 1) {
      continue;  // folded away
    }
    const auto unit = topo::translate(pod, topo::Translation{d, 1});
    if (!unit) {
      continue;  // a line
    }
    any_translation = true;
    uint32_t period = 1;
    for (const coll::Plan* plan : plans) {
      period = std::lcm(period, coll::plan_period(pod, *plan, d, *unit));
      if (period >= n) {
        break;
      }
    }
    if (period < n) {
      generators.push_back(topo::Translation{d, period});
    }
  }
  if (generators.empty()) {
    out.why_full = any_translation ? "no translation of the torus keeps every collective"
                                   : "no dimension wraps around (no translation maps the pod "
                                     "onto itself)";
    return out;
  }
  out.classes = topo::SymmetryClasses::make(pod, generators);
  if (!out.classes) {
    out.why_full = "the torus's translations do not keep its links";
  }
  return out;
}

net::LinkStats unfold_classes(const topo::SymmetryClasses& classes, const net::LinkStats& stats) {
  net::LinkStats out;
  out.bytes.resize(stats.bytes.size());
  out.busy.resize(stats.busy.size());
  for (size_t l = 0; l < stats.bytes.size(); ++l) {
    const topo::LinkId rep = classes.rep_link(static_cast<topo::LinkId>(l));
    out.bytes[l] = stats.bytes[rep];
    out.busy[l] = stats.busy[rep];
  }
  return out;
}

std::vector<uint64_t> unfold_classes(const topo::SymmetryClasses& classes,
                                     const std::vector<uint64_t>& link_bytes) {
  std::vector<uint64_t> out(link_bytes.size());
  for (size_t l = 0; l < link_bytes.size(); ++l) {
    out[l] = link_bytes[classes.rep_link(static_cast<topo::LinkId>(l))];
  }
  return out;
}

std::string describe(const topo::Pod& pod, const SymmetryChoice& choice) {
  if (choice.classes) {
    return choice.classes->describe(pod);
  }
  return choice.why_full;
}

}  // namespace podsim::engine
