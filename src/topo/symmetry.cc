#include "topo/symmetry.h"

#include <algorithm>
#include <numeric>

namespace podsim::topo {
namespace {

// Union-find whose roots are the smallest member of their set.
class MinRoots {
 public:
  explicit MinRoots(uint32_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0U); }
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a < b) {
      parent_[b] = a;
    } else if (b < a) {
      parent_[a] = b;
    }
  }

 private:
  std::vector<uint32_t> parent_;
};

// The link a chip permutation `map` (chips only: the DCN switch stays where
// it is) would send `id` to, unchecked: an ICI link goes to the link along
// the same dimension and direction from its source's image; a chip's DCN up
// or down link to its image's. nullopt when there is no such ICI link.
std::optional<LinkId> mapped(const Pod& pod, const std::vector<ChipId>& map, const Link& link) {
  switch (link.kind) {
    case LinkKind::kDcnUp:
      return pod.dcn_up(map[link.src]);
    case LinkKind::kDcnDown:
      return pod.dcn_down(map[link.dst]);
    case LinkKind::kIci:
      break;
  }
  return pod.link_from(map[link.src], link.dim, link.direction);
}

// The end of a link as `map` moves it (the switch stays).
VertexId moved_end(const Pod& pod, const std::vector<ChipId>& map, VertexId v) {
  return v < pod.chip_count() ? map[v] : v;
}

// The link `map` sends `id` to, checked: nullopt when it is missing, lands
// elsewhere or differs in bandwidth or latency.
std::optional<LinkId> image(const Pod& pod, const std::vector<ChipId>& map, LinkId id) {
  const Link& link = pod.link(id);
  const auto to = mapped(pod, map, link);
  if (!to) {
    return std::nullopt;
  }
  const Link& other = pod.link(*to);
  if (other.src != moved_end(pod, map, link.src) || other.dst != moved_end(pod, map, link.dst) ||
      other.bandwidth != link.bandwidth || other.latency != link.latency) {
    return std::nullopt;
  }
  return to;
}

}  // namespace

std::optional<std::vector<ChipId>> translate(const Pod& pod, const Translation& t) {
  if (t.dim >= pod.dim_count() || t.steps == 0) {
    return std::nullopt;
  }
  std::vector<ChipId> map(pod.chip_count());
  for (ChipId c = 0; c < pod.chip_count(); ++c) {
    const auto next = pod.neighbour(c, t.dim, +1);
    if (!next) {
      return std::nullopt;
    }
    map[c] = *next;
  }
  // A bijection that keeps every link: each link's image exists and matches
  // (the same count of links both ways then makes it onto).
  std::vector<uint8_t> hit(pod.chip_count(), 0);
  for (const ChipId c : map) {
    if (hit[c] != 0) {
      return std::nullopt;
    }
    hit[c] = 1;
  }
  for (LinkId id = 0; id < pod.links().size(); ++id) {
    if (!image(pod, map, id)) {
      return std::nullopt;
    }
  }
  return t.steps == 1 ? map : power(map, t.steps);
}

std::vector<ChipId> power(const std::vector<ChipId>& map, uint32_t times) {
  std::vector<ChipId> out(map.size());
  std::iota(out.begin(), out.end(), 0U);
  std::vector<ChipId> square = map;
  std::vector<ChipId> next(map.size());
  while (times > 0) {
    if ((times & 1U) != 0) {
      for (size_t c = 0; c < out.size(); ++c) {
        out[c] = square[out[c]];
      }
    }
    times >>= 1;
    if (times > 0) {
      for (size_t c = 0; c < square.size(); ++c) {
        next[c] = square[square[c]];
      }
      square.swap(next);
    }
  }
  return out;
}

std::optional<SymmetryClasses> SymmetryClasses::make(const Pod& pod,
                                                     std::span<const Translation> generators) {
  std::vector<std::vector<ChipId>> units;
  for (const Translation& t : generators) {
    auto unit = translate(pod, Translation{t.dim, 1});
    if (!unit) {
      return std::nullopt;
    }
    units.push_back(std::move(*unit));
  }
  return make(pod, generators, units);
}

std::optional<SymmetryClasses> SymmetryClasses::make(
    const Pod& pod, std::span<const Translation> generators,
    std::span<const std::vector<ChipId>> checked_units) {
  if (generators.empty() || checked_units.size() != generators.size()) {
    return std::nullopt;
  }
  const uint32_t chips = pod.chip_count();
  const auto links = static_cast<uint32_t>(pod.links().size());
  MinRoots chip_sets(chips);
  MinRoots link_sets(links);
  for (size_t g = 0; g < generators.size(); ++g) {
    const Translation& t = generators[g];
    if (t.steps == 0 || checked_units[g].size() != chips) {
      return std::nullopt;
    }
    // A power of a checked one-hop translation keeps every link too: a
    // link's image is the link along its dimension and direction from its
    // source's image.
    const std::vector<ChipId> map =
        t.steps == 1 ? checked_units[g] : power(checked_units[g], t.steps);
    for (ChipId c = 0; c < chips; ++c) {
      chip_sets.join(c, map[c]);
    }
    for (LinkId id = 0; id < links; ++id) {
      link_sets.join(id, *mapped(pod, map, pod.link(id)));
    }
  }
  SymmetryClasses out;
  out.generators_.assign(generators.begin(), generators.end());
  out.chip_rep_.resize(chips);
  std::vector<uint32_t> members(chips, 0);
  for (ChipId c = 0; c < chips; ++c) {
    out.chip_rep_[c] = chip_sets.find(c);
    if (++members[out.chip_rep_[c]] == 1) {
      out.reps_.push_back(c);
    }
  }
  out.orbit_size_ = members[0];
  for (const ChipId r : out.reps_) {
    if (members[r] != out.orbit_size_) {
      return std::nullopt;  // not a translation group after all
    }
  }
  if (out.orbit_size_ <= 1) {
    return std::nullopt;
  }
  out.link_rep_.resize(links);
  std::vector<uint32_t> link_members(links, 0);
  for (LinkId id = 0; id < links; ++id) {
    out.link_rep_[id] = link_sets.find(id);
    ++link_members[out.link_rep_[id]];
  }
  for (LinkId id = 0; id < links; ++id) {
    if (out.link_rep_[id] == id && link_members[id] != out.orbit_size_) {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<SymmetryClasses> SymmetryClasses::make_within(const Pod& pod,
                                                            std::span<const Translation> generators,
                                                            const std::vector<uint8_t>& moved) {
  const uint32_t chips = pod.chip_count();
  if (pod.slice_count() != 1 || generators.empty() || moved.size() != chips) {
    return std::nullopt;
  }
  const auto links = static_cast<uint32_t>(pod.links().size());
  MinRoots chip_sets(chips);
  MinRoots link_sets(links);
  std::vector<ChipId> map(chips);
  std::vector<uint8_t> hit(chips);
  for (const Translation& t : generators) {
    if (t.dim >= pod.dim_count() || t.steps == 0) {
      return std::nullopt;
    }
    std::fill(hit.begin(), hit.end(), uint8_t{0});
    for (ChipId c = 0; c < chips; ++c) {
      ChipId to = c;
      for (uint32_t k = 0; moved[c] != 0 && k < t.steps; ++k) {
        const auto next = pod.neighbour(to, t.dim, +1);
        if (!next || moved[*next] == 0) {
          return std::nullopt;  // the region does not map onto itself
        }
        to = *next;
      }
      if (hit[to] != 0) {
        return std::nullopt;
      }
      hit[to] = 1;
      map[c] = to;
      chip_sets.join(c, to);
    }
    for (LinkId id = 0; id < links; ++id) {
      const Link& link = pod.link(id);
      if (link.src >= chips || link.dst >= chips || moved[link.src] == 0 || moved[link.dst] == 0) {
        continue;  // a class of its own
      }
      const auto to = image(pod, map, id);
      if (!to) {
        return std::nullopt;
      }
      link_sets.join(id, *to);
    }
  }
  SymmetryClasses out;
  out.generators_.assign(generators.begin(), generators.end());
  out.orbit_size_ = 0;
  out.chip_rep_.resize(chips);
  out.class_size_.assign(chips, 0);
  for (ChipId c = 0; c < chips; ++c) {
    out.chip_rep_[c] = chip_sets.find(c);
    if (++out.class_size_[out.chip_rep_[c]] == 1) {
      out.reps_.push_back(c);
    }
  }
  if (out.reps_.size() == chips) {
    return std::nullopt;  // nothing moves
  }
  out.link_rep_.resize(links);
  for (LinkId id = 0; id < links; ++id) {
    out.link_rep_[id] = link_sets.find(id);
  }
  return out;
}

std::string SymmetryClasses::describe(const Pod& pod) const {
  std::string s = "translations";
  for (const Translation& t : generators_) {
    s += ' ' + pod.spec().torus.dims[t.dim].name + '+' + std::to_string(t.steps);
  }
  if (partial()) {
    uint32_t moved_classes = 0;
    uint32_t moved_chips = 0;
    for (const ChipId r : reps_) {
      if (class_size_[r] > 1) {
        ++moved_classes;
        moved_chips += class_size_[r];
      }
    }
    s += " within " + std::to_string(moved_chips) + " chips: " + std::to_string(moved_classes) +
         (moved_classes == 1 ? " class" : " classes") + " of " +
         std::to_string(moved_chips / moved_classes) + " chips, every other chip its own (" +
         std::to_string(pod.chip_count()) + " in all)";
    return s;
  }
  s += ": " + std::to_string(class_count()) + (class_count() == 1 ? " class" : " classes") +
       " of " + std::to_string(orbit_size_) + " chips (" + std::to_string(pod.chip_count()) +
       " in all)";
  return s;
}

}  // namespace podsim::topo
