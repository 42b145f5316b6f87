#include "config/internal/topology_locations.h"

#include <string>

#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {

bool check_chip_at(IssueList& issues, const FieldPath& path, const podsim::Topology& t,
                   uint32_t slice, const Coords& coords) {
  const uint32_t slices = t.slices() == 0 ? 1 : t.slices();
  bool ok = true;
  if (slice >= slices) {
    issues.add(path("slice"), "must be < " + std::to_string(slices) +
                                  " (the number of slices), got " + std::to_string(slice));
    ok = false;
  }
  if (coords.size() != t.torus().dims_size()) {
    issues.add(path("coords"), "has " + std::to_string(coords.size()) +
                                   " coordinates, the torus has " +
                                   std::to_string(t.torus().dims_size()) + " dimensions");
    return false;
  }
  for (int j = 0; j < coords.size(); ++j) {
    const Dimension& d = t.torus().dims(j);
    if (coords.Get(j) >= d.size()) {
      issues.add(path("coords", j), "must be < " + std::to_string(d.size()) +
                                        " (size of dimension " + dimension_name(d, j) + "), got " +
                                        std::to_string(coords.Get(j)));
      ok = false;
    }
  }
  return ok;
}

bool check_link_at(IssueList& issues, const FieldPath& path, const podsim::Topology& t,
                   uint32_t slice, const Coords& coords, uint32_t dim, int32_t direction) {
  bool ok = true;
  const auto dims = static_cast<uint32_t>(t.torus().dims_size());
  if (dim >= dims) {
    issues.add(path("dim"), "must be < " + std::to_string(dims) +
                                " (the number of dimensions), got " + std::to_string(dim));
    ok = false;
  }
  if (direction != 1 && direction != -1) {
    issues.add(path("direction"), "must be +1 or -1, got " + std::to_string(direction));
    ok = false;
  }
  ok = check_chip_at(issues, path, t, slice, coords) && ok;
  if (!ok) {
    return false;
  }
  const Dimension& d = t.torus().dims(static_cast<int>(dim));
  const std::string name = dimension_name(d, static_cast<int>(dim));
  if (d.size() <= 1) {
    issues.add(path, "no such link: dimension " + name + " has size 1, so it has no links");
    return false;
  }
  const uint32_t coord = coords.Get(static_cast<int>(dim));
  const bool off_end = !d.wraparound() &&
                       ((direction > 0 && coord == d.size() - 1) || (direction < 0 && coord == 0));
  if (!off_end) {
    return true;
  }
  issues.add(path, "no such link: coordinate " + std::to_string(coord) + " is at the " +
                       (coord == 0 ? "start" : "end") + " of dimension " + name + " (size " +
                       std::to_string(d.size()) + ", no wraparound), so it has no " +
                       (direction > 0 ? "+1" : "-1") + " neighbour");
  return false;
}

}  // namespace podsim::config::internal
