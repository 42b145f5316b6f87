#include "coll/plan.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::coll {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveKind;

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? a : (a + b - 1) / b;
}

bool is_slice_axis(const topo::DeviceMesh& mesh, const std::string& name) {
  for (const auto& a : mesh.axes()) {
    if (a.name == name) {
      return a.dims.size() == 1 && a.dims[0] == topo::kSliceDim;
    }
  }
  throw std::invalid_argument("collective names unknown mesh axis '" + name + "'");
}

// An axis closes into a ring when every torus dimension under it wraps (the
// slice axis always does: the DCN fabric joins any two chips).
bool axes_wrap(const topo::Pod& pod, const topo::DeviceMesh& mesh,
               const std::vector<std::string>& names) {
  for (const auto& a : mesh.axes()) {
    if (std::find(names.begin(), names.end(), a.name) == names.end()) {
      continue;
    }
    for (const uint32_t d : a.dims) {
      if (d != topo::kSliceDim && !pod.wraparound(d)) {
        return false;
      }
    }
  }
  return true;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) {
    s += (s.empty() ? "" : ",") + n;
  }
  return s;
}

class Lowering {
 public:
  Lowering(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c)
      : pod_(pod), mesh_(mesh), c_(c) {}

  Plan run() {
    for (const auto& a : c_.axes) {
      (is_slice_axis(mesh_, a) ? dcn_ : ici_).push_back(a);
      plan_.group_size *= mesh_.axis_size(a);
    }
    switch (c_.kind) {
      case CollectiveKind::kAllGather:
      case CollectiveKind::kReduceScatter:
      case CollectiveKind::kAllReduce:
        lower_ring_family();
        break;
      case CollectiveKind::kAllToAll:
        lower_all_to_all();
        break;
      case CollectiveKind::kBroadcast:
        lower_broadcast();
        break;
      case CollectiveKind::kPermute:
        lower_permute();
        break;
    }
    return std::move(plan_);
  }

 private:
  uint32_t group_set(const std::vector<std::string>& axes) {
    return group_set_of(mesh_, join_names(axes), axes);
  }

  // Groups of chips that differ only along one torus dimension (or only in
  // their slice), whatever the mesh's axes are.
  uint32_t dim_group_set(uint32_t dim) {
    const std::string name = dim == topo::kSliceDim ? "#slice" : "#d" + std::to_string(dim);
    const topo::DeviceMesh one_dim(pod_, {{name, {dim}}});
    return group_set_of(one_dim, name, {name});
  }

  uint32_t group_set_of(const topo::DeviceMesh& mesh, const std::string& key,
                        const std::vector<std::string>& axes) {
    for (size_t i = 0; i < set_keys_.size(); ++i) {
      if (set_keys_[i] == key) {
        return static_cast<uint32_t>(i);
      }
    }
    GroupSet gs;
    gs.groups = mesh.groups(axes);
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

  bool bidirectional() const { return c_.algorithm != CollectiveAlgorithm::kUnidirectionalRing; }

  // One gather (or scatter) step over `axis`, where every chip holds `bytes`
  // before the phase: its contribution (gather) or its buffer (scatter).
  Phase ring_phase(const std::string& axis, uint64_t bytes, bool gather) {
    const std::vector<std::string> axes{axis};
    const uint32_t n = mesh_.axis_size(axis);
    Phase ph;
    ph.group_set = group_set(axes);
    ph.axis = axis;
    ph.wraps = axes_wrap(pod_, mesh_, axes);
    ph.reduces = !gather;
    const uint64_t step_bytes = gather ? bytes : ceil_div(bytes, n);
    const bool dcn = is_slice_axis(mesh_, axis);
    if (ph.wraps) {
      ph.pattern = Pattern::kRing;
      // Over DCN both ways share each chip's one path to the fabric, so a
      // second direction would gain nothing: a one-way ring.
      if (bidirectional() && !dcn) {
        ph.lanes = {{+1, step_bytes, n / 2}, {-1, step_bytes, (n - 1) / 2}};
      } else {
        ph.lanes = {{+1, step_bytes, n - 1}};
      }
    } else {
      // A line: chunks (or partial sums) flow both ways, each in full.
      ph.pattern = gather ? Pattern::kLineGather : Pattern::kLineScatter;
      ph.lanes = {{+1, step_bytes}, {-1, step_bytes}};
    }
    return ph;
  }

  void lower_ring_family() {
    const bool split = c_.algorithm != CollectiveAlgorithm::kSequentialAxes && ici_.size() > 1;
    const size_t shares = split ? ici_.size() : 1;
    for (size_t j = 0; j < shares; ++j) {
      // The shares add up to V exactly; chunks within a share round up.
      const uint64_t share_bytes = c_.bytes / shares + (j < c_.bytes % shares ? 1 : 0);
      std::vector<std::string> order;
      for (size_t i = 0; i < ici_.size(); ++i) {
        order.push_back(ici_[(i + j) % ici_.size()]);
      }
      Share share;
      if (c_.kind == CollectiveKind::kAllGather) {
        // Slowest network first, while each chip holds the least data.
        uint64_t held = ceil_div(share_bytes, plan_.group_size);
        for (const auto& a : dcn_) {
          share.phases.push_back(ring_phase(a, held, true));
          held *= mesh_.axis_size(a);
        }
        for (const auto& a : order) {
          share.phases.push_back(ring_phase(a, held, true));
          held *= mesh_.axis_size(a);
        }
      } else {
        uint64_t held = share_bytes;
        std::vector<uint64_t> held_before;
        for (const auto& a : order) {
          share.phases.push_back(ring_phase(a, held, false));
          held_before.push_back(held);
          held = ceil_div(held, mesh_.axis_size(a));
        }
        for (const auto& a : dcn_) {
          share.phases.push_back(ring_phase(a, held, false));
          if (c_.kind == CollectiveKind::kAllReduce) {
            // Inside the DCN all-reduce: scatter then gather the same block.
            share.phases.push_back(ring_phase(a, ceil_div(held, mesh_.axis_size(a)), true));
          } else {
            held = ceil_div(held, mesh_.axis_size(a));
          }
        }
        if (c_.kind == CollectiveKind::kAllReduce) {
          for (size_t i = order.size(); i-- > 0;) {
            share.phases.push_back(
                ring_phase(order[i], ceil_div(held_before[i], mesh_.axis_size(order[i])), true));
          }
        }
      }
      plan_.shares.push_back(std::move(share));
    }
  }

  // One dimension, or DIRECT: every pair exchanges its block of V / N^2
  // along its dimension-ordered route. Several torus dimensions (the default,
  // whether they come from several mesh axes or one axis over several
  // dimensions): one direct exchange per dimension -- a chip first sends
  // each peer along the dimension the blocks bound for that peer's line, and
  // so on -- with the buffer split into one share per dimension, share j
  // visiting the dimensions in rotated order, so every dimension's links work
  // at once. Each block still crosses its dimension-ordered hops, so the link
  // load is the direct exchange's, but each phase's flows stay within one
  // ring: the sum over dimensions of n^2 flows per group instead of N^2.
  void lower_all_to_all() {
    const uint64_t n = plan_.group_size;
    std::vector<uint32_t> dims;
    for (const auto& a : mesh_.axes()) {
      if (std::find(c_.axes.begin(), c_.axes.end(), a.name) != c_.axes.end()) {
        for (const uint32_t d : a.dims) {
          if (pod_.shape().dim_size(d) > 1) {
            dims.push_back(d);
          }
        }
      }
    }
    if (dims.size() <= 1 || c_.algorithm == CollectiveAlgorithm::kDirect) {
      Phase ph;
      ph.pattern = Pattern::kDirect;
      ph.group_set = group_set(c_.axes);
      ph.axis = join_names(c_.axes);
      ph.lanes = {{+1, ceil_div(c_.bytes, n * n), 0}};
      plan_.shares.push_back(Share{{std::move(ph)}});
      return;
    }
    const bool split = c_.algorithm != CollectiveAlgorithm::kSequentialAxes;
    const size_t shares = split ? dims.size() : 1;
    for (size_t j = 0; j < shares; ++j) {
      const uint64_t share_bytes = c_.bytes / shares + (j < c_.bytes % shares ? 1 : 0);
      Share share;
      for (size_t i = 0; i < dims.size(); ++i) {
        const uint32_t d = dims[(i + j) % dims.size()];
        const uint64_t peers = pod_.shape().dim_size(d);
        Phase ph;
        ph.pattern = Pattern::kDirect;
        ph.group_set = dim_group_set(d);
        ph.axis = join_names(c_.axes);
        // Each chip holds share / N; it sends each of its peers 1/peers of it.
        ph.lanes = {{+1, ceil_div(share_bytes, n * peers), 0}};
        share.phases.push_back(std::move(ph));
      }
      plan_.shares.push_back(std::move(share));
    }
  }

  void lower_broadcast() {
    Phase ph;
    ph.pattern = Pattern::kChain;
    ph.group_set = group_set(c_.axes);
    ph.axis = join_names(c_.axes);
    ph.wraps = axes_wrap(pod_, mesh_, c_.axes);
    if (c_.root >= plan_.group_size) {
      throw std::invalid_argument("broadcast root " + std::to_string(c_.root) +
                                  " is outside its group of " + std::to_string(plan_.group_size));
    }
    ph.root = c_.root;
    // Pipelining: pieces of about 1 MiB, at least 1 and at most 64, so a long
    // chain fills quickly while a small buffer stays one transfer.
    ph.pieces = static_cast<uint32_t>(std::clamp<uint64_t>(c_.bytes >> 20, 1, 64));
    const uint64_t piece = ceil_div(c_.bytes, ph.pieces);
    ph.lanes = {{+1, piece}, {-1, piece}};
    plan_.shares.push_back(Share{{std::move(ph)}});
  }

  void lower_permute() {
    Phase ph;
    ph.pattern = Pattern::kShift;
    ph.group_set = group_set(c_.axes);
    ph.axis = join_names(c_.axes);
    ph.wraps = axes_wrap(pod_, mesh_, c_.axes);
    ph.shift = c_.shift;
    ph.lanes = {{+1, c_.bytes}};
    plan_.shares.push_back(Share{{std::move(ph)}});
  }

  const topo::Pod& pod_;
  const topo::DeviceMesh& mesh_;
  const config::CollectiveSpec& c_;
  std::vector<std::string> ici_;
  std::vector<std::string> dcn_;
  std::vector<std::string> set_keys_;
  Plan plan_;
};

}  // namespace

Plan lower(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c) {
  if (c.axes.empty()) {
    throw std::invalid_argument("collective has no mesh axes");
  }
  return Lowering(pod, mesh, c).run();
}

double bus_bandwidth_factor(config::CollectiveKind kind, uint32_t n) {
  const double f = n == 0 ? 0.0 : static_cast<double>(n - 1) / static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      return f;
    case CollectiveKind::kAllReduce:
      return 2 * f;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kPermute:
      return 1.0;
  }
  return 1.0;
}

const char* to_string(config::CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kPermute:
      return "collective-permute";
  }
  return "unknown";
}

}  // namespace podsim::coll
