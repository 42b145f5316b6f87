// The faults of a pod beside failed links (pod.h): dead chips lose every
// link, degraded links carry a fraction of the bandwidth with extra latency,
// and dead chips and stragglers are indexed for O(1) look-ups.
#include <stdexcept>
#include <string>

#include "topo/pod.h"

namespace podsim::topo {

ChipId Pod::fault_chip(uint32_t slice, std::span<const uint32_t> coords, const char* what) const {
  try {
    return shape_.chip_at(slice, coords);
  } catch (const std::out_of_range& e) {
    throw std::invalid_argument("pod '" + spec_.name + "': " + what + ": " + e.what());
  }
}

void Pod::mark_dead_chip_links(std::vector<bool>& failed) const {
  for (const config::DeadChipSpec& d : spec_.dead_chips) {
    const ChipId chip = fault_chip(d.slice, d.coords, "dead chip");
    for (uint32_t dim = 0; dim < dim_count(); ++dim) {
      for (const int direction : {+1, -1}) {
        if (const auto other = wired_neighbour(chip, dim, direction)) {
          failed[table_index(chip, dim, direction)] = true;
          failed[table_index(*other, dim, -direction)] = true;
        }
      }
    }
  }
}

void Pod::degrade_links() {
  for (const config::DegradedLinkSpec& d : spec_.degraded_links) {
    if (d.dim >= dim_count() || (d.direction != 1 && d.direction != -1))
      throw std::invalid_argument("pod '" + spec_.name +
                                  "': degraded link with a bad dimension or direction");
    const ChipId chip = fault_chip(d.slice, d.coords, "degraded link");
    const auto there = link_from(chip, d.dim, d.direction);
    const auto other = wired_neighbour(chip, d.dim, d.direction);
    const auto back = other ? link_from(*other, d.dim, -d.direction) : std::nullopt;
    if (!there || !back)
      throw std::invalid_argument("pod '" + spec_.name +
                                  "': degraded link names a link that does not exist");
    for (const LinkId id : {*there, *back}) {
      Link& l = links_[id];
      l.bandwidth = sim::Bandwidth::bytes_per_s(static_cast<uint64_t>(
          static_cast<double>(l.bandwidth.bytes_per_s()) * d.bandwidth_factor));
      l.latency = l.latency + d.extra_latency;
    }
  }
}

void Pod::index_chip_faults() {
  if (!spec_.dead_chips.empty()) {
    dead_.assign(chip_count(), false);
    for (const config::DeadChipSpec& d : spec_.dead_chips)
      dead_[fault_chip(d.slice, d.coords, "dead chip")] = true;
  }
  if (!spec_.stragglers.empty()) {
    straggler_index_.assign(chip_count(), -1);
    for (size_t i = 0; i < spec_.stragglers.size(); ++i) {
      const config::StragglerSpec& s = spec_.stragglers[i];
      straggler_index_[fault_chip(s.slice, s.coords, "straggler")] = static_cast<int32_t>(i);
    }
  }
}

}  // namespace podsim::topo
