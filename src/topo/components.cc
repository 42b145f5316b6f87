#include "topo/components.h"

#include <algorithm>
#include <utility>

namespace podsim::topo {
namespace {

// Chips listed per component in a message before "...": enough to find the
// cut on a small slice, bounded on a big one.
constexpr size_t kNamedChips = 4;

}  // namespace

bool Components::connected() const {
  return std::all_of(per_slice.begin(), per_slice.end(), [](uint32_t n) { return n <= 1; });
}

bool Components::reachable(ChipId a, ChipId b) const {
  if (of_chip[a] == kDead || of_chip[b] == kDead)
    return false;
  return of_chip[a] == of_chip[b] || slice[of_chip[a]] != slice[of_chip[b]];
}

Components ici_components(const Pod& pod) {
  Components c;
  c.of_chip.assign(pod.chip_count(), Components::kDead);
  c.per_slice.assign(pod.slice_count(), 0);
  if (!pod.has_failed_links()) {
    // A healthy torus (or line) is connected: one component per slice.
    const uint32_t per = pod.shape().chips_per_slice();
    for (uint32_t s = 0; s < pod.slice_count(); ++s) {
      std::fill(c.of_chip.begin() + static_cast<std::ptrdiff_t>(s) * per,
                c.of_chip.begin() + static_cast<std::ptrdiff_t>(s + 1) * per, s);
      c.slice.push_back(s);
      c.size.push_back(per);
      c.first.push_back(s * per);
      c.per_slice[s] = 1;
    }
    return c;
  }
  std::vector<ChipId> queue;
  queue.reserve(pod.chip_count());
  for (ChipId start = 0; start < pod.chip_count(); ++start) {
    if (pod.is_dead(start) || c.of_chip[start] != Components::kDead)
      continue;
    const auto id = static_cast<uint32_t>(c.size.size());
    c.slice.push_back(pod.slice_of(start));
    c.size.push_back(0);
    c.first.push_back(start);
    ++c.per_slice[pod.slice_of(start)];
    queue.assign(1, start);
    c.of_chip[start] = id;
    for (size_t head = 0; head < queue.size(); ++head) {
      ++c.size[id];
      for (const LinkId l : pod.out_links(queue[head])) {
        const Link& link = pod.link(l);
        if (link.kind != LinkKind::kIci || c.of_chip[link.dst] != Components::kDead)
          continue;
        c.of_chip[link.dst] = id;
        queue.push_back(link.dst);
      }
    }
  }
  return c;
}

std::string chip_name(const Pod& pod, ChipId chip) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on
  // "literal" + std::string&& here.
  std::string name;
  if (pod.slice_count() > 1) {
    name.append("slice ");
    name.append(std::to_string(pod.slice_of(chip)));
    name.push_back(' ');
  }
  name.push_back('(');
  const std::vector<uint32_t> coords = pod.coords(chip);
  for (size_t d = 0; d < coords.size(); ++d) {
    if (d > 0)
      name.push_back(',');
    name.append(std::to_string(coords[d]));
  }
  name.push_back(')');
  return name;
}

std::string describe_components(const Pod& pod, const Components& c, uint32_t slice) {
  std::vector<uint32_t> ids;
  for (uint32_t k = 0; k < c.size.size(); ++k) {
    if (c.slice[k] == slice)
      ids.push_back(k);
  }
  // Largest first: the small pieces cut off are what a reader looks for last.
  std::stable_sort(ids.begin(), ids.end(),
                   [&c](uint32_t a, uint32_t b) { return c.size[a] > c.size[b]; });
  std::vector<std::vector<ChipId>> named(c.size.size());
  const ChipId begin = slice * pod.shape().chips_per_slice();
  const ChipId end = begin + pod.shape().chips_per_slice();
  for (ChipId chip = begin; chip < end; ++chip) {
    const uint32_t k = c.of_chip[chip];
    if (k != Components::kDead && named[k].size() < kNamedChips)
      named[k].push_back(chip);
  }
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    const uint32_t k = ids[i];
    text += i == 0 ? "{" : i + 1 == ids.size() ? " and {" : ", {";
    if (c.size[k] > named[k].size())
      text += std::to_string(c.size[k]) + " chips: ";
    for (size_t j = 0; j < named[k].size(); ++j) {
      // Within one slice the slice prefix says nothing new.
      std::string name = chip_name(pod, named[k][j]);
      if (const size_t paren = name.find('('); paren != std::string::npos)
        name = name.substr(paren);
      text += (j == 0 ? "" : ", ") + name;
    }
    text += c.size[k] > named[k].size() ? ", ...}" : "}";
  }
  return text;
}

void require_reachable(const Pod& pod, const Components& c, std::span<const ChipId> chips,
                       std::string_view needed_by) {
  if (c.connected() && std::none_of(chips.begin(), chips.end(),
                                    [&c](ChipId x) { return c.of_chip[x] == Components::kDead; }))
    return;
  // The first chip met in each slice; every other chip there must share its component.
  std::vector<ChipId> first_in_slice;
  for (const ChipId chip : chips) {
    if (c.of_chip[chip] == Components::kDead) {
      throw Partitioned(std::string(needed_by) + " needs chip " + chip_name(pod, chip) +
                        ", which is dead");
    }
    const auto seen = std::find_if(first_in_slice.begin(), first_in_slice.end(),
                                   [&](ChipId f) { return pod.slice_of(f) == pod.slice_of(chip); });
    if (seen == first_in_slice.end()) {
      first_in_slice.push_back(chip);
      continue;
    }
    if (c.of_chip[*seen] == c.of_chip[chip])
      continue;
    const uint32_t slice = pod.slice_of(chip);
    throw Partitioned(
        std::string(needed_by) + " needs a route from chip " + chip_name(pod, *seen) + " to chip " +
        chip_name(pod, chip) + ", but dead chips and failed links cut " +
        (pod.slice_count() > 1 ? "slice " + std::to_string(slice) + "'s" : std::string("the")) +
        " live chips apart into " + std::to_string(c.per_slice[slice]) +
        " components that cannot reach each other: " + describe_components(pod, c, slice));
  }
}

}  // namespace podsim::topo
