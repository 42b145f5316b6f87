#include "engine/fold.h"

#include <algorithm>
#include <vector>

#include "topo/routing.h"

namespace podsim::engine {
namespace {

// Chips by replica: a chip's key is the chip of its replica whose spanned
// coordinates are all 0, and its offset what the spanned coordinates add to
// that key (chip ids are sums of coordinate x stride, topo/shape.h).
class Replicas {
 public:
  Replicas(const topo::Pod& pod, const std::set<uint32_t>& spanned) {
    for (const uint32_t d : spanned) {
      if (d == topo::kSliceDim || d < pod.dim_count()) {
        dims_.push_back(d);
      }
    }
    offset_.resize(pod.chip_count());
    const topo::Shape& shape = pod.shape();
    for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
      topo::ChipId off = 0;
      for (const uint32_t d : dims_) {
        off += shape.coord(c, d) * shape.stride(d);
      }
      offset_[c] = off;
    }
  }
  topo::ChipId key(topo::ChipId c) const { return c - offset_[c]; }
  topo::ChipId offset(topo::ChipId c) const { return offset_[c]; }

 private:
  std::vector<uint32_t> dims_;
  std::vector<topo::ChipId> offset_;
};

FoldChoice every_chip(const topo::Pod& pod, std::string why) {
  FoldChoice out;
  out.chips.resize(pod.chip_count());
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    out.chips[c] = c;
  }
  out.why_not = std::move(why);
  return out;
}

// The replicas whose timelines a fault changes: dead chips, stragglers, and
// failed or degraded links along spanned dimensions (a link along an
// unspanned one joins two replicas and carries neither's traffic, unless a
// detour crosses it: see touched below).
std::vector<bool> dirty_replicas(const topo::Pod& pod, const std::set<uint32_t>& spanned,
                                 const Replicas& replicas,
                                 std::span<const topo::ChipId> stragglers) {
  const config::PodSpec& spec = pod.spec();
  std::vector<bool> dirty(pod.chip_count(), false);
  auto mark = [&](uint32_t slice, const std::vector<uint32_t>& coords) {
    dirty[replicas.key(pod.chip_at(slice, coords))] = true;
  };
  for (const auto& f : spec.failed_links) {
    if (spanned.count(f.dim) != 0) {
      mark(f.slice, f.coords);
    }
  }
  for (const auto& g : spec.degraded_links) {
    if (spanned.count(g.dim) != 0) {
      mark(g.slice, g.coords);
    }
  }
  for (const auto& d : spec.dead_chips) {
    mark(d.slice, d.coords);
  }
  for (const auto& s : spec.stragglers) {
    mark(s.slice, s.coords);
  }
  for (const topo::ChipId c : stragglers) {
    dirty[replicas.key(c)] = true;
  }
  return dirty;
}

}  // namespace

FoldChoice choose_fold(const topo::Pod& pod, const std::set<uint32_t>& spanned, bool fold,
                       std::span<const topo::ChipId> stragglers, bool named_sends) {
  if (!fold) {
    return every_chip(pod, "");
  }
  const bool faulty = pod.has_faults() || !stragglers.empty();
  if (pod.has_twists()) {
    return every_chip(pod, faulty ? "the torus is twisted" : "");
  }
  const Replicas replicas(pod, spanned);
  std::vector<topo::ChipId> keys;  // one per replica, ascending
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    if (replicas.key(c) == c) {
      keys.push_back(c);
    }
  }
  if (keys.size() <= 1) {
    return every_chip(pod, "");
  }
  std::vector<bool> simulated(pod.chip_count(), false);  // by replica key
  FoldChoice out;
  topo::ChipId rep_key = 0;
  if (faulty) {
    if (pod.slice_count() != 1) {
      return every_chip(pod, "the pod has several slices");
    }
    if (named_sends) {
      return every_chip(pod, "a send between named chips takes the routes its plan fixed");
    }
    const std::vector<bool> dirty = dirty_replicas(pod, spanned, replicas, stragglers);
    std::vector<std::vector<topo::ChipId>> members(pod.chip_count());
    uint64_t pairs = 0;
    for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
      if (dirty[replicas.key(c)] && !pod.is_dead(c)) {
        auto& m = members[replicas.key(c)];
        pairs += 2 * m.size();
        m.push_back(c);
      }
    }
    if (pairs > kMaxRoutePairs) {
      return every_chip(pod, "the replicas a fault reaches have too many routes to check");
    }
    // Every route a dirty replica's transfer may take, both ways round a tie;
    // a replica whose link one crosses is touched.
    auto touch = [&](topo::ChipId, topo::LinkId id) {
      const topo::Link& link = pod.link(id);
      simulated[replicas.key(link.src)] = true;
      simulated[replicas.key(link.dst)] = true;
    };
    for (const topo::ChipId key : keys) {
      if (!dirty[key]) {
        continue;
      }
      simulated[key] = true;
      for (const topo::ChipId a : members[key]) {
        for (const topo::TieBreak tie : {topo::TieBreak::kPlus, topo::TieBreak::kMinus}) {
          try {
            topo::visit_routes_from(pod, a, members[key], tie, touch);
          } catch (const topo::NoRoute&) {
            return every_chip(pod, "a fault cuts a replica apart");
          }
        }
      }
    }
    const auto clean =
        std::find_if(keys.begin(), keys.end(), [&](topo::ChipId k) { return !simulated[k]; });
    if (clean == keys.end()) {
      return every_chip(pod, "the faults reach every replica");
    }
    rep_key = *clean;
    for (const topo::ChipId k : keys) {
      out.faulty_replicas += simulated[k] ? 1 : 0;
    }
  }
  simulated[rep_key] = true;
  out.represented_by.resize(pod.chip_count());
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    if (simulated[replicas.key(c)]) {
      out.chips.push_back(c);
      out.represented_by[c] = c;
      if (faulty && replicas.key(c) == rep_key) {
        out.stand_in.push_back(c);
      }
    } else {
      out.represented_by[c] = rep_key + replicas.offset(c);
    }
  }
  return out;
}

}  // namespace podsim::engine
