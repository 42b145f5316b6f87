#include "coll/internal/builder.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace podsim::coll::internal {

std::string join_names(std::span<const std::string> names, const char* sep) {
  std::string s;
  for (const auto& n : names) {
    s += (s.empty() ? "" : sep) + n;
  }
  return s;
}

Builder::Builder(const topo::Pod& pod, const topo::DeviceMesh& mesh,
                 const config::CollectiveSpec& c)
    : pod_(pod), mesh_(mesh), c_(c) {
  for (const auto& name : c.axes) {
    const auto axes = mesh.axes();
    const auto it = std::find_if(axes.begin(), axes.end(),
                                 [&](const topo::MeshAxisSpec& a) { return a.name == name; });
    if (it == axes.end()) {
      throw std::invalid_argument("collective names unknown mesh axis '" + name + "'");
    }
    if (it->dims.size() == 1 && it->dims[0] == topo::kSliceDim) {
      dcn_axes_.push_back(name);
      plan_.group_size *= pod.slice_count();
      continue;
    }
    ici_axes_.push_back(name);
    for (const uint32_t d : it->dims) {
      plan_.group_size *= pod.dim_size(d);
      if (pod.dim_size(d) > 1) {
        ici_dims_.push_back(d);
        if (pod_.twisted(d)) {
          twisted_dims_.push_back(d);
        }
      }
    }
  }
}

Unit Builder::dim_unit(uint32_t dim, TwistedAs twisted_as) {
  Unit u;
  u.dim = dim;
  u.group_set = dim_group_set(dim);
  if (dim == topo::kSliceDim) {
    u.size = pod_.slice_count();
    u.wraps = true;  // the DCN fabric joins any two chips
    u.dcn = true;
    u.label = "slice";
    return u;
  }
  const std::string& name = pod_.spec().torus.dims[dim].name;
  u.size = pod_.dim_size(dim);
  u.walk_dim = static_cast<int32_t>(dim);
  if (pod_.twisted(dim)) {
    u.wraps = twisted_as == TwistedAs::kCycle;
    u.label = name + (u.wraps ? " cycle" : " line");
  } else {
    u.wraps = pod_.wraparound(dim);
    u.label = name + (u.wraps ? " ring" : " line");
  }
  return u;
}

std::vector<Unit> Builder::ici_units(bool snake, std::span<const TwistedAs> twisted_as) {
  std::vector<Unit> units;
  if (!snake) {
    for (const uint32_t d : ici_dims_) {
      const auto at = std::find(twisted_dims_.begin(), twisted_dims_.end(), d);
      const auto i = static_cast<size_t>(at - twisted_dims_.begin());
      units.push_back(dim_unit(d, i < twisted_as.size() ? twisted_as[i] : TwistedAs::kLine));
    }
    return units;
  }
  for (const auto& axis : ici_axes_) {
    const std::span<const std::string> one(&axis, 1);
    Unit u;
    u.group_set = axes_group_set(one);
    u.size = mesh_.axis_size(axis);
    if (u.size <= 1) {
      continue;
    }
    // The snake closes into a ring when every dimension under it wraps.
    u.wraps = true;
    for (const auto& a : mesh_.axes()) {
      if (a.name == axis) {
        for (const uint32_t d : a.dims) {
          u.wraps = u.wraps && (pod_.dim_size(d) <= 1 || pod_.wraparound(d));
        }
      }
    }
    u.label = axis + (u.wraps ? " snake ring" : " snake line");
    units.push_back(std::move(u));
  }
  return units;
}

uint32_t Builder::add_group_set(const std::string& key,
                                std::vector<std::vector<topo::ChipId>> groups) {
  GroupSet gs;
  gs.groups = std::move(groups);
  gs.group_of.assign(pod_.chip_count(), 0);
  gs.position.assign(pod_.chip_count(), 0);
  for (uint32_t g = 0; g < gs.groups.size(); ++g) {
    for (uint32_t p = 0; p < gs.groups[g].size(); ++p) {
      gs.group_of[gs.groups[g][p]] = g;
      gs.position[gs.groups[g][p]] = p;
    }
  }
  plan_.group_sets.push_back(std::move(gs));
  set_keys_.push_back(key);
  return static_cast<uint32_t>(plan_.group_sets.size() - 1);
}

uint32_t Builder::find_group_set(const std::string& key) const {
  for (size_t i = 0; i < set_keys_.size(); ++i) {
    if (set_keys_[i] == key) {
      return static_cast<uint32_t>(i);
    }
  }
  return std::numeric_limits<uint32_t>::max();
}

uint32_t Builder::axes_group_set(std::span<const std::string> axes) {
  const std::string key = "axes:" + join_names(axes);
  if (const uint32_t i = find_group_set(key); i != std::numeric_limits<uint32_t>::max()) {
    return i;
  }
  return add_group_set(key, mesh_.groups(axes));
}

uint32_t Builder::cycle_group_set(uint32_t dim) {
  if (dim == topo::kSliceDim || !pod_.twisted(dim)) {
    return dim_group_set(dim);
  }
  const std::string key = "cycle:" + std::to_string(dim);
  if (const uint32_t i = find_group_set(key); i != std::numeric_limits<uint32_t>::max()) {
    return i;
  }
  // Walk +dim from every chip not yet on a cycle; a walk that meets a
  // missing link (a failed link) ends its group there, as a line.
  std::vector<std::vector<topo::ChipId>> groups;
  std::vector<uint8_t> seen(pod_.chip_count(), 0);
  for (topo::ChipId first = 0; first < pod_.chip_count(); ++first) {
    if (seen[first] != 0) {
      continue;
    }
    std::vector<topo::ChipId> cycle;
    topo::ChipId at = first;
    while (seen[at] == 0) {
      seen[at] = 1;
      cycle.push_back(at);
      const auto next = pod_.neighbour(at, dim, +1);
      if (!next) {
        break;
      }
      at = *next;
    }
    groups.push_back(std::move(cycle));
  }
  return add_group_set(key, std::move(groups));
}

uint32_t Builder::dim_group_set(uint32_t dim) {
  const std::string key = "dim:" + std::to_string(dim);
  if (const uint32_t i = find_group_set(key); i != std::numeric_limits<uint32_t>::max()) {
    return i;
  }
  const std::string name = "#d" + std::to_string(dim);
  const topo::DeviceMesh one_dim(pod_, {{name, {dim}}});
  const std::vector<std::string> axes{name};
  return add_group_set(key, one_dim.groups(axes));
}

}  // namespace podsim::coll::internal
