// The points of a sweep, by index, without materialising the list: a grid
// of a million points costs no more memory than one point.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/sweep_spec.h"

namespace podsim::sweep {

// One configuration of a sweep: the overrides to apply to the base inputs and
// the run options.
struct Point {
  uint64_t index = 0;
  // "path=value": the sweep's fixed `set` first, then one per varied --set
  // path, in the order the parameters are written.
  std::vector<std::string> overrides;
  std::string network;  // as the sweep or its "network" parameter says
  std::string compute;
  // The input files: the base ones or a "topology" / "workload" parameter's
  // value; nullopt: the embedded default.
  std::optional<std::string> topology_file;
  std::optional<std::string> workload_file;
  // "path=value" of every varied parameter (network and compute included),
  // for progress lines and messages.
  std::vector<std::string> varied;

  friend bool operator==(const Point&, const Point&) = default;
};

// The index-th point, index < spec.points. Grid: the first parameter varies
// slowest (as nested loops written in the parameters' order); zip: the
// index-th value of every parameter. O(parameters).
Point point_at(const config::SweepSpec& spec, uint64_t index);

}  // namespace podsim::sweep
