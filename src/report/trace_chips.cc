#include "report/trace_chips.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace podsim::report {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  return s;
}

topo::ChipId parse_id(std::string_view text, std::string_view item, uint32_t chip_count) {
  uint64_t v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw TraceChipsError("--trace-chips: '" + std::string(item) +
                          "' is not a chip id, a range like 0-15, or 'critical'");
  }
  if (v >= chip_count) {
    throw TraceChipsError("--trace-chips: chip " + std::string(text) +
                          " is out of range: the pod has " + std::to_string(chip_count) +
                          " chips (0-" + std::to_string(chip_count - 1) + ")");
  }
  return static_cast<topo::ChipId>(v);
}

// Where replica folding left chips out: the engine's StepResult::represented_by
// (engine/fold.h), or, for a result without it, the torus dimensions (and the
// slice index) along which every simulated chip sits at 0: a healthy fold
// keeps coordinate 0 along each dimension no collective spans, so a chip
// left out is represented by the one with those coordinates set to 0.
class Folding {
 public:
  Folding(const topo::Pod& pod, const engine::StepResult& step)
      : pod_(pod),
        represented_by_(step.represented_by),
        folded_(pod.dim_count(), pod.chip_count() > step.chips.size()) {
    slice_folded_ = pod.slice_count() > 1 && pod.chip_count() > step.chips.size();
    for (const topo::ChipId c : step.chips) {
      for (uint32_t d = 0; d < pod.dim_count(); ++d) {
        folded_[d] = folded_[d] && pod.coord(c, d) == 0;
      }
      slice_folded_ = slice_folded_ && pod.slice_of(c) == 0;
    }
  }
  topo::ChipId representative(topo::ChipId chip) const {
    if (!represented_by_.empty()) {
      return represented_by_[chip];  // the engine's own (engine/fold.h)
    }
    std::vector<uint32_t> coords = pod_.coords(chip);
    for (uint32_t d = 0; d < coords.size(); ++d) {
      if (folded_[d]) {
        coords[d] = 0;
      }
    }
    return pod_.chip_at(slice_folded_ ? 0 : pod_.slice_of(chip), coords);
  }

 private:
  const topo::Pod& pod_;
  const std::vector<topo::ChipId>& represented_by_;
  std::vector<bool> folded_;
  bool slice_folded_ = false;
};

// The simulated chip whose timeline the critical chip has (on a faulty pod's
// fold the first critical chip may be one a healthy replica stands for).
topo::ChipId critical_stand_in(const engine::StepResult& step) {
  return step.represented_by.empty() ? step.critical_chip
                                     : step.represented_by[step.critical_chip];
}

void pick_requested(const TraceChipRequest& request, const topo::Pod& pod,
                    const engine::StepResult& step, const std::vector<int32_t>& index_of,
                    std::set<uint32_t>& picked, TraceChipChoice& out) {
  if (request.critical && index_of[critical_stand_in(step)] >= 0) {
    picked.insert(static_cast<uint32_t>(index_of[critical_stand_in(step)]));
  }
  const Folding folding(pod, step);
  std::string examples;
  uint32_t mapped = 0;
  uint32_t lost = 0;
  constexpr uint32_t kExamples = 8;
  for (const topo::ChipId c : request.chips) {
    if (c >= index_of.size()) {
      ++lost;  // parsed for another pod
      continue;
    }
    if (index_of[c] >= 0) {
      picked.insert(static_cast<uint32_t>(index_of[c]));
      continue;
    }
    const topo::ChipId r = folding.representative(c);
    if (index_of[r] < 0) {
      ++lost;  // not expected: folding keeps a representative of every chip
      continue;
    }
    picked.insert(static_cast<uint32_t>(index_of[r]));
    if (mapped++ < kExamples) {
      examples += examples.empty() ? "" : ", ";
      examples += std::to_string(c) + "->" + std::to_string(r);
    }
  }
  if (mapped > 0) {
    out.notes.push_back(std::to_string(mapped) +
                        " requested chips were folded away (replica folding: not simulated); "
                        "traced as their simulated representatives: " +
                        examples + (mapped > kExamples ? ", ..." : ""));
  }
  if (lost > 0) {
    out.notes.push_back(std::to_string(lost) +
                        " requested chips were not simulated and have no "
                        "simulated representative; left out");
  }
}

}  // namespace

TraceChipRequest parse_trace_chips(std::string_view list, uint32_t chip_count) {
  TraceChipRequest r;
  if (trim(list).empty()) {
    throw TraceChipsError("--trace-chips: empty list (expected e.g. 0,5,17 or 0-15 or critical)");
  }
  std::set<topo::ChipId> ids;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view item = trim(list.substr(at, comma - at));
    at = comma + 1;
    if (item.empty()) {
      throw TraceChipsError("--trace-chips: empty item in '" + std::string(list) + "'");
    }
    if (item == "critical") {
      r.critical = true;
      continue;
    }
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      ids.insert(parse_id(item, item, chip_count));
      continue;
    }
    const topo::ChipId lo = parse_id(trim(item.substr(0, dash)), item, chip_count);
    const topo::ChipId hi = parse_id(trim(item.substr(dash + 1)), item, chip_count);
    if (hi < lo) {
      throw TraceChipsError("--trace-chips: range '" + std::string(item) + "' runs backwards");
    }
    for (topo::ChipId c = lo; c <= hi; ++c) {
      ids.insert(c);
    }
  }
  r.chips.assign(ids.begin(), ids.end());
  return r;
}

TraceChipChoice choose_trace_chips(const TraceChipRequest& request, const topo::Pod& pod,
                                   const engine::StepResult& step, uint32_t limit) {
  TraceChipChoice out;
  const auto simulated = static_cast<uint32_t>(step.chips.size());
  std::vector<int32_t> index_of(pod.chip_count(), -1);
  for (uint32_t i = 0; i < simulated; ++i) {
    index_of[step.chips[i]] = static_cast<int32_t>(i);
  }
  if (simulated < pod.chip_count()) {
    out.notes.push_back("replica folding: simulated " + std::to_string(simulated) + " of " +
                        std::to_string(pod.chip_count()) +
                        " chips; each chip left out has the timeline of a simulated replica");
  }
  std::set<uint32_t> picked;
  if (request.given()) {
    pick_requested(request, pod, step, index_of, picked, out);
  } else if (simulated <= limit) {
    for (uint32_t i = 0; i < simulated; ++i) {
      picked.insert(i);
    }
  } else {
    if (index_of[critical_stand_in(step)] >= 0) {
      picked.insert(static_cast<uint32_t>(index_of[critical_stand_in(step)]));
    }
    std::set<uint32_t> stages_seen;
    for (uint32_t i = 0; i < simulated; ++i) {  // chips are in id order
      if (stages_seen.insert(step.chip_stage[i]).second) {
        picked.insert(i);
      }
    }
    out.limited = true;
    out.notes.push_back("trace limited to " + std::to_string(picked.size()) + " of " +
                        std::to_string(simulated) +
                        " simulated chips (the critical chip and the first chip of each stage); "
                        "--trace-chips chooses others");
  }
  out.indices.assign(picked.begin(), picked.end());
  return out;
}

}  // namespace podsim::report
