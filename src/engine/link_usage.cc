#include "engine/link_usage.h"

#include <optional>
#include <stdexcept>

namespace podsim::engine {
namespace {

// The simulated chip standing for `chip`: its coordinates along spanned
// dimensions, 0 along the others (and slice 0 unless slices are spanned).
topo::ChipId representative(const topo::Pod& pod, const std::vector<bool>& spanned,
                            bool slices_spanned, topo::ChipId chip) {
  std::vector<uint32_t> coords = pod.coords(chip);
  for (uint32_t d = 0; d < coords.size(); ++d) {
    if (!spanned[d]) {
      coords[d] = 0;
    }
  }
  return pod.chip_at(slices_spanned ? pod.slice_of(chip) : 0, coords);
}

// The link of `rep` that plays the part `link` plays for its own source chip.
std::optional<topo::LinkId> matching_link(const topo::Pod& pod, const topo::Link& link,
                                          topo::ChipId rep) {
  switch (link.kind) {
    case topo::LinkKind::kIci:
      return pod.link_from(rep, link.dim, link.direction);
    case topo::LinkKind::kDcnUp:
      return pod.dcn_up(rep);
    case topo::LinkKind::kDcnDown:
      return pod.dcn_down(rep);
  }
  return std::nullopt;
}

}  // namespace

std::vector<topo::ChipId> replica_representatives(const topo::Pod& pod,
                                                  std::span<const topo::ChipId> simulated) {
  std::vector<topo::ChipId> rep(pod.chip_count());
  for (topo::ChipId c = 0; c < rep.size(); ++c) {
    rep[c] = c;
  }
  if (simulated.empty() || simulated.size() == pod.chip_count()) {
    return rep;
  }
  std::vector<bool> spanned(pod.dim_count(), false);
  bool slices_spanned = false;
  for (const topo::ChipId c : simulated) {
    for (uint32_t d = 0; d < pod.dim_count(); ++d) {
      spanned[d] = spanned[d] || pod.coord(c, d) != 0;
    }
    slices_spanned = slices_spanned || pod.slice_of(c) != 0;
  }
  for (topo::ChipId c = 0; c < rep.size(); ++c) {
    rep[c] = representative(pod, spanned, slices_spanned, c);
  }
  return rep;
}

net::LinkStats unfold_replicas(const topo::Pod& pod, std::span<const topo::ChipId> simulated,
                               const net::LinkStats& stats) {
  if (simulated.empty() || simulated.size() == pod.chip_count()) {
    return stats;
  }
  return unfold_by(pod, replica_representatives(pod, simulated), stats);
}

net::LinkStats unfold_by(const topo::Pod& pod, std::span<const topo::ChipId> rep_of,
                         const net::LinkStats& stats) {
  if (rep_of.empty()) {
    return stats;
  }
  const auto links = pod.links();
  net::LinkStats out;
  out.bytes.assign(links.size(), 0);
  out.busy.assign(links.size(), sim::Time::zero());
  for (topo::LinkId id = 0; id < links.size(); ++id) {
    const topo::Link& link = links[id];
    // A DCN down link leaves the fabric vertex: it belongs to its destination.
    const topo::ChipId owner = link.kind == topo::LinkKind::kDcnDown ? link.dst : link.src;
    const topo::ChipId rep = rep_of[owner];
    const std::optional<topo::LinkId> from = rep == owner ? id : matching_link(pod, link, rep);
    if (from) {
      out.bytes[id] = stats.bytes.at(*from);
      out.busy[id] = stats.busy.at(*from);
    }
  }
  return out;
}

std::vector<LinkUsage> link_usage(const topo::Pod& pod, const net::LinkStats& stats,
                                  const net::Options& network, sim::Time window) {
  const auto links = pod.links();
  if (stats.bytes.size() != links.size() || stats.busy.size() != links.size()) {
    throw std::invalid_argument("link_usage: link statistics do not match the pod's links");
  }
  const double window_s = window.to_s();
  std::vector<LinkUsage> out(links.size());
  for (topo::LinkId id = 0; id < links.size(); ++id) {
    const topo::Link& link = links[id];
    LinkUsage& u = out[id];
    u.link = id;
    u.bytes = stats.bytes[id];
    u.busy = stats.busy[id];
    if (window_s <= 0) {
      continue;
    }
    const double efficiency =
        link.kind == topo::LinkKind::kIci ? network.ici_efficiency : network.dcn_efficiency;
    const double capacity =
        static_cast<double>(link.bandwidth.bytes_per_s()) * efficiency * window_s;
    u.utilisation = capacity > 0 ? static_cast<double>(u.bytes) / capacity : 0;
    u.busy_fraction = u.busy.to_s() / window_s;
  }
  return out;
}

}  // namespace podsim::engine
