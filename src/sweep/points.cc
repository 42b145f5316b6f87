#include "sweep/points.h"

#include <stdexcept>

namespace podsim::sweep {

Point point_at(const config::SweepSpec& spec, uint64_t index) {
  if (index >= spec.points)
    throw std::out_of_range("sweep point " + std::to_string(index) + " of " +
                            std::to_string(spec.points));
  Point p;
  p.index = index;
  p.overrides = spec.set;
  p.network = spec.network;
  p.compute = spec.compute;
  p.topology_file = spec.topology_file;
  p.workload_file = spec.workload_file;
  // The value index of each parameter: mixed radix, last parameter fastest.
  std::vector<uint64_t> pick(spec.parameters.size(), index);
  if (spec.combine == config::SweepCombine::kGrid) {
    uint64_t rest = index;
    for (size_t i = spec.parameters.size(); i-- > 0;) {
      const uint64_t n = spec.parameters[i].values.size();
      pick[i] = rest % n;
      rest /= n;
    }
  }
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    const config::SweepParameter& param = spec.parameters[i];
    const std::string& value = param.values[pick[i]];
    if (param.path == "network") {
      p.network = value;
    } else if (param.path == "compute") {
      p.compute = value;
    } else if (param.path == "topology") {
      p.topology_file = value;
    } else if (param.path == "workload") {
      p.workload_file = value;
    } else {
      p.overrides.push_back(param.path + "=" + value);
      for (const std::string& also : param.also)
        p.overrides.push_back(also + "=" + value);
    }
    p.varied.push_back(param.path + "=" + value);
  }
  return p;
}

}  // namespace podsim::sweep
