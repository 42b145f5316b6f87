#include "config/internal/chip_pair_validator.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

// "(1, 2) in slice 0": how messages name a chip.
std::string chip_label(const podsim::ChipCoords& c) {
  std::string s = "(";
  for (int i = 0; i < c.coords_size(); ++i) {
    s += (i == 0 ? "" : ", ") + std::to_string(c.coords(i));
  }
  return s + ") in slice " + std::to_string(c.slice());
}

// True when the chip names a chip of the pod; otherwise one issue per problem.
bool check_chip(const podsim::ChipCoords& c, const PodSpec& pod, const FieldPath& path,
                IssueList& issues) {
  bool ok = true;
  const auto dims = static_cast<int>(pod.torus.dims.size());
  if (c.coords_size() != dims) {
    std::string names;
    for (const auto& d : pod.torus.dims) {
      names += (names.empty() ? "" : ", ") + d.name;
    }
    issues.add(path("coords"), "must give " + plural(static_cast<uint64_t>(dims), "coordinate") +
                                   " (" + names + "), got " + std::to_string(c.coords_size()));
    ok = false;
  } else {
    for (int i = 0; i < dims; ++i) {
      const uint32_t size = pod.torus.dims[static_cast<size_t>(i)].size;
      if (c.coords(i) >= size) {
        issues.add(path("coords", i), "dimension " + pod.torus.dims[static_cast<size_t>(i)].name +
                                          " has " + plural(size, "chip") + " (0 to " +
                                          std::to_string(size - 1) + "), got " +
                                          std::to_string(c.coords(i)));
        ok = false;
      }
    }
  }
  if (c.slice() >= pod.slices) {
    issues.add(path("slice"), "the pod has " + plural(pod.slices, "slice") + ", got slice " +
                                  std::to_string(c.slice()));
    ok = false;
  }
  if (ok) {
    for (size_t k = 0; k < pod.dead_chips.size(); ++k) {
      const DeadChipSpec& d = pod.dead_chips[k];
      if (d.slice == c.slice() &&
          std::equal(d.coords.begin(), d.coords.end(), c.coords().begin(), c.coords().end())) {
        issues.add(path, "chip " + chip_label(c) + " is dead (the topology's dead_chips[" +
                             std::to_string(k) + "])");
        ok = false;
      }
    }
  }
  return ok;
}

using Key = std::pair<std::vector<uint32_t>, std::vector<uint32_t>>;

Key key_of(const podsim::ChipPair& p) {
  std::vector<uint32_t> src(p.src().coords().begin(), p.src().coords().end());
  std::vector<uint32_t> dst(p.dst().coords().begin(), p.dst().coords().end());
  src.push_back(p.src().slice());
  dst.push_back(p.dst().slice());
  return {std::move(src), std::move(dst)};
}

}  // namespace

void validate_chip_pairs(const podsim::Collective& c, const PodSpec& pod, const FieldPath& path,
                         IssueList& issues) {
  if (c.pairs_size() == 0) {
    issues.add(
        path("pairs"),
        "SEND needs at least one pair (pairs { src { coords: [...] } dst { coords: [...] } })");
    return;
  }
  std::map<Key, int> seen;
  for (int i = 0; i < c.pairs_size(); ++i) {
    const podsim::ChipPair& p = c.pairs(i);
    const FieldPath at = path("pairs", i);
    const bool src_ok = check_chip(p.src(), pod, at("src"), issues);
    const bool dst_ok = check_chip(p.dst(), pod, at("dst"), issues);
    if (!src_ok || !dst_ok) {
      continue;
    }
    const Key key = key_of(p);
    if (key.first == key.second) {
      issues.add(at, "source and destination are the same chip " + chip_label(p.src()) +
                         ": a send to itself moves nothing");
      continue;
    }
    if (const auto [it, added] = seen.emplace(key, i); !added) {
      issues.add(at, "the pair " + chip_label(p.src()) + " -> " + chip_label(p.dst()) +
                         " is already listed as pairs[" + std::to_string(it->second) +
                         "]; give one pair the sum of the bytes");
    }
  }
}

}  // namespace podsim::config::internal
