#include "config/internal/topology_faults.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "config/internal/topology_locations.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config::internal {
namespace {

constexpr double kMinFactor = 1e-3;

using ChipKey = std::pair<uint32_t, std::vector<uint32_t>>;  // (slice, coords)
// A physical link: its lower end by (slice, coords), then dim; both
// directions of one link give the same key.
using LinkKey = std::tuple<uint32_t, std::vector<uint32_t>, uint32_t>;

ChipKey chip_key(uint32_t slice, const Coords& coords) {
  return {slice, std::vector<uint32_t>(coords.begin(), coords.end())};
}

// The coordinates a link along (dim, direction) reaches, twists included.
std::vector<uint32_t> far_end(const podsim::Topology& t, std::vector<uint32_t> c, uint32_t dim,
                              int32_t direction) {
  const uint32_t size = t.torus().dims(static_cast<int>(dim)).size();
  const bool wrap = direction > 0 ? c[dim] == size - 1 : c[dim] == 0;
  c[dim] = direction > 0 ? (c[dim] + 1) % size : (c[dim] + size - 1) % size;
  if (wrap) {
    for (const Twist& tw : t.torus().twists()) {
      if (tw.dim() != dim || tw.shift_dim() >= c.size()) {
        continue;
      }
      const uint32_t n = t.torus().dims(static_cast<int>(tw.shift_dim())).size();
      const uint32_t shift = tw.offset() % n;
      c[tw.shift_dim()] =
          direction > 0 ? (c[tw.shift_dim()] + shift) % n : (c[tw.shift_dim()] + n - shift) % n;
    }
  }
  return c;
}

// The same key for both directions of a link: the direction-+1 end's.
LinkKey link_key(const podsim::Topology& t, uint32_t slice, const Coords& coords, uint32_t dim,
                 int32_t direction) {
  std::vector<uint32_t> c(coords.begin(), coords.end());
  if (direction < 0) {
    c = far_end(t, c, dim, direction);
  }
  return {slice, c, dim};
}

std::string where(const std::string& field, int index) {
  return field + "[" + std::to_string(index) + "]";
}

class FaultRules {
 public:
  FaultRules(IssueList& issues, const FieldPath& root, const podsim::Topology& t)
      : issues_(issues), root_(root), t_(t) {}

  void run() {
    for (int i = 0; i < t_.failed_links_size(); ++i) {
      const FailedLink& f = t_.failed_links(i);
      if (located_link(FieldPath(), f.slice(), f.coords(), f.dim(), f.direction()))
        failed_.emplace(link_key(t_, f.slice(), f.coords(), f.dim(), f.direction()), i);
    }
    dead_chips();
    degraded_links();
    stragglers();
  }

 private:
  // Silent location checks for entries whose own rules report elsewhere.
  bool located_link(const FieldPath& path, uint32_t slice, const Coords& coords, uint32_t dim,
                    int32_t direction) {
    IssueList scratch;
    return check_link_at(scratch, path, t_, slice, coords, dim, direction);
  }

  void dead_chips() {
    for (int i = 0; i < t_.dead_chips_size(); ++i) {
      const DeadChip& d = t_.dead_chips(i);
      const FieldPath path = root_("dead_chips", i);
      if (!check_chip_at(issues_, path, t_, d.slice(), d.coords()))
        continue;
      const auto [it, added] = dead_.emplace(chip_key(d.slice(), d.coords()), i);
      if (!added)
        issues_.add(path, "the same chip as " + where("dead_chips", it->second));
    }
    if (!dead_.empty() && dead_.size() == chip_count())
      issues_.add(root_("dead_chips"), "every chip is dead");
  }

  void degraded_links() {
    std::map<LinkKey, int> seen;
    for (int i = 0; i < t_.degraded_links_size(); ++i) {
      const DegradedLink& d = t_.degraded_links(i);
      const FieldPath path = root_("degraded_links", i);
      bool ok = check_link_at(issues_, path, t_, d.slice(), d.coords(), d.dim(), d.direction());
      const bool slower = d.has_bandwidth_factor() && d.bandwidth_factor() < 1;
      if (d.has_bandwidth_factor())
        ok = factor(path("bandwidth_factor"), d.bandwidth_factor()) && ok;
      if (issues_.non_negative(path("extra_latency_ns"), d.extra_latency_ns()) &&
          issues_.at_most(path("extra_latency_ns"), d.extra_latency_ns(), kMaxLatencyNs, "ns")) {
        if (!slower && d.extra_latency_ns() == 0) {
          issues_.add(path,
                      "degrades nothing: set bandwidth_factor below 1 or extra_latency_ns "
                      "above 0");
        }
      }
      if (!ok)
        continue;
      const LinkKey key = link_key(t_, d.slice(), d.coords(), d.dim(), d.direction());
      if (const auto f = failed_.find(key); f != failed_.end()) {
        issues_.add(path, "the link has failed (" + where("failed_links", f->second) +
                              "): remove one of the two");
        continue;
      }
      if (on_dead_chip(path, d.slice(), d.coords(), "chip the link leaves"))
        continue;
      const std::vector<uint32_t> other = far_end(
          t_, std::vector<uint32_t>(d.coords().begin(), d.coords().end()), d.dim(), d.direction());
      if (const auto dead = dead_.find({d.slice(), other}); dead != dead_.end()) {
        issues_.add(path, "the link reaches a dead chip (" + where("dead_chips", dead->second) +
                              "), whose links are gone");
        continue;
      }
      const auto [it, added] = seen.emplace(key, i);
      if (!added)
        issues_.add(path, "the same physical link as " + where("degraded_links", it->second) +
                              " (a link's two directions degrade together)");
    }
  }

  void stragglers() {
    std::map<ChipKey, int> seen;
    for (int i = 0; i < t_.stragglers_size(); ++i) {
      const Straggler& s = t_.stragglers(i);
      const FieldPath path = root_("stragglers", i);
      bool ok = check_chip_at(issues_, path, t_, s.slice(), s.coords());
      bool slower = false;
      if (s.has_compute_factor()) {
        ok = factor(path("compute_factor"), s.compute_factor()) && ok;
        slower = slower || s.compute_factor() < 1;
      }
      if (s.has_hbm_factor()) {
        ok = factor(path("hbm_factor"), s.hbm_factor()) && ok;
        slower = slower || s.hbm_factor() < 1;
      }
      if (ok && !slower) {
        issues_.add(path, "slows nothing: set compute_factor or hbm_factor below 1");
        continue;
      }
      if (!ok || on_dead_chip(path, s.slice(), s.coords(), "chip"))
        continue;
      const auto [it, added] = seen.emplace(chip_key(s.slice(), s.coords()), i);
      if (!added)
        issues_.add(path, "the same chip as " + where("stragglers", it->second) +
                              " (give both factors in one entry)");
    }
  }

  bool on_dead_chip(const FieldPath& path, uint32_t slice, const Coords& coords,
                    const std::string& what) {
    const auto dead = dead_.find(chip_key(slice, coords));
    if (dead == dead_.end())
      return false;
    issues_.add(path, "the " + what + " is dead (" + where("dead_chips", dead->second) + ")");
    return true;
  }

  bool factor(const FieldPath& path, double value) {
    if (!std::isfinite(value) || value < kMinFactor || value > 1) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%g", value);
      issues_.add(path, std::string("must be a fraction in [0.001, 1], got ") + shown +
                            (value > 1 ? " (a fault cannot speed the hardware up)" : ""));
      return false;
    }
    return true;
  }

  size_t chip_count() const {
    size_t n = t_.slices() == 0 ? 1 : t_.slices();
    for (const Dimension& d : t_.torus().dims())
      n *= d.size();
    return n;
  }

  IssueList& issues_;
  const FieldPath& root_;
  const podsim::Topology& t_;
  std::map<ChipKey, int> dead_;
  std::map<LinkKey, int> failed_;
};

}  // namespace

void check_faults(IssueList& issues, const FieldPath& root, const podsim::Topology& t) {
  FaultRules(issues, root, t).run();
}

}  // namespace podsim::config::internal
