#include "net/link_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "topo/routing.h"

namespace podsim::net {
namespace {

bool is_fraction(double v) {
  return std::isfinite(v) && v > 0.0 && v <= 1.0;
}

[[noreturn]] void bad_route(const Transfer& t, const std::string& what) {
  throw std::invalid_argument("network: route of the transfer from chip " + std::to_string(t.src) +
                              " to chip " + std::to_string(t.dst) + " " + what);
}

}  // namespace

void validate(const Options& options) {
  if (options.packet_bytes == 0) {
    throw std::invalid_argument("network options: packet_bytes must be positive");
  }
  if (!is_fraction(options.ici_efficiency)) {
    throw std::invalid_argument("network options: ici_efficiency " +
                                std::to_string(options.ici_efficiency) + " is not in (0, 1]");
  }
  if (!is_fraction(options.dcn_efficiency)) {
    throw std::invalid_argument("network options: dcn_efficiency " +
                                std::to_string(options.dcn_efficiency) + " is not in (0, 1]");
  }
}

sim::Bandwidth effective_bandwidth(const topo::Link& link, const Options& options) {
  const double efficiency =
      link.kind == topo::LinkKind::kIci ? options.ici_efficiency : options.dcn_efficiency;
  // Efficiency 1 must leave the published figure untouched, bit for bit.
  const uint64_t published = link.bandwidth.bytes_per_s();
  const uint64_t bps =
      efficiency == 1.0
          ? published
          : static_cast<uint64_t>(std::llround(static_cast<double>(published) * efficiency));
  if (bps == 0) {
    throw std::invalid_argument("network: a link from vertex " + std::to_string(link.src) +
                                " to vertex " + std::to_string(link.dst) +
                                " has no effective bandwidth");
  }
  return sim::Bandwidth::bytes_per_s(bps);
}

LinkTable::LinkTable(const topo::Pod& pod, const Options& options)
    : pod_(pod), options_(options), entries_(pod.links().size()) {
  validate(options);
  for (const topo::Link& link : pod.links()) {
    effective_bandwidth(link, options);  // throws for a link that can carry nothing
  }
}

void LinkTable::fill(topo::LinkId id) const {
  const topo::Link& link = pod_.link(id);
  entries_[id] = Entry{link.src, link.dst, link.latency, effective_bandwidth(link, options_)};
}

std::span<const topo::LinkId> LinkTable::resolve(const Transfer& t,
                                                 std::vector<topo::LinkId>& scratch) const {
  if (t.over_classes) {
    throw std::invalid_argument(
        "a transfer over link classes (a symmetric run) needs the flow or the analytical network "
        "model");
  }
  scratch.clear();
  if (t.route.empty()) {
    topo::route_into(pod_, t.src, t.dst, scratch);
    return scratch;
  }
  topo::VertexId at = t.src;
  for (const topo::LinkId id : t.route) {
    if (id >= size())
      bad_route(t, "names link " + std::to_string(id) + ", which does not exist");
    const Entry& link = entry(id);
    if (link.src != at) {
      bad_route(t, "is not a walk: link " + std::to_string(id) + " does not leave vertex " +
                       std::to_string(at));
    }
    at = link.dst;
  }
  if (at != t.dst)
    bad_route(t, "ends at vertex " + std::to_string(at));
  return t.route;
}

std::span<const topo::LinkId> LinkTable::class_route(const Transfer& t) const {
  if (t.route.empty())
    throw std::invalid_argument("a transfer over link classes has no route");
  for (const topo::LinkId id : t.route) {
    if (id >= size())
      throw std::invalid_argument("a route over link classes names link " + std::to_string(id) +
                                  ", not a link of the pod");
  }
  return t.route;
}

sim::Time LinkTable::route_latency(std::span<const topo::LinkId> route) const {
  sim::Time total;
  for (const topo::LinkId id : route)
    total += entry(id).latency;
  return total;
}

sim::Bandwidth LinkTable::bottleneck(std::span<const topo::LinkId> route) const {
  sim::Bandwidth slowest = entry(route.front()).bandwidth;
  for (const topo::LinkId id : route)
    slowest = std::min(slowest, entry(id).bandwidth);
  return slowest;
}

}  // namespace podsim::net
