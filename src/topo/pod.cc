#include "topo/pod.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "topo/pod_graph.h"

namespace podsim::topo {
namespace {

std::vector<uint32_t> dim_sizes(const config::TorusSpec& torus) {
  std::vector<uint32_t> sizes;
  sizes.reserve(torus.dims.size());
  for (const auto& d : torus.dims)
    sizes.push_back(d.size);
  return sizes;
}

[[noreturn]] void reject(const config::PodSpec& spec, const std::string& what) {
  throw std::invalid_argument("pod '" + spec.name + "' (" + spec.source_file + "): " + what);
}

// The few rules whose breach would make the graph ill-formed. The loader checks
// them (and more) with file context; this is the last line of defence for specs
// built in code.
void check_structure(const config::PodSpec& spec) {
  const auto& dims = spec.torus.dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].wraparound && dims[d].size < 3) {
      reject(spec, "dimension " + std::to_string(d) + " wraps around with fewer than 3 chips");
    }
  }
  for (const auto& t : spec.torus.twists) {
    if (t.dim >= dims.size() || t.shift_dim >= dims.size() || t.dim == t.shift_dim) {
      reject(spec, "twist names a missing dimension or shifts along its own");
    }
    if (!dims[t.dim].wraparound) {
      reject(spec, "twist on dimension " + std::to_string(t.dim) + ", which has no wraparound");
    }
  }
  if (spec.slices > 1 && !spec.dcn)
    reject(spec, "several slices but no DCN");
}

}  // namespace

Pod::Pod(config::PodSpec spec)
    : spec_(std::move(spec)), shape_(dim_sizes(spec_.torus), spec_.slices) {
  check_structure(spec_);
  add_ici_links();
  degrade_links();
  if (has_dcn())
    add_dcn_links();
  index_out_links();
  index_chip_faults();
}

Pod::~Pod() = default;

const PodGraph& Pod::graph() const {
  std::call_once(graph_once_, [this] {
    graph_ = std::make_unique<PodGraph>(vertex_count());
    for (LinkId id = 0; id < links_.size(); ++id) {
      boost::add_edge(links_[id].src, links_[id].dst, LinkEdge{id}, *graph_);
    }
  });
  return *graph_;
}

std::optional<ChipId> Pod::wired_neighbour(ChipId chip, uint32_t dim, int direction) const {
  const uint32_t size = shape_.dim_size(dim);
  const uint32_t stride = shape_.stride(dim);
  const uint32_t c = shape_.coord(chip, dim);
  if (size < 2)
    return std::nullopt;
  if (direction > 0 && c + 1 < size)
    return chip + stride;
  if (direction < 0 && c > 0)
    return chip - stride;
  if (!wraparound(dim))
    return std::nullopt;
  // Wrap link: to the other end of the ring, shifted along any twisted dimension.
  ChipId n = direction > 0 ? chip - c * stride : chip + (size - 1 - c) * stride;
  for (const auto& t : spec_.torus.twists) {
    if (t.dim != dim)
      continue;
    const uint32_t e_size = shape_.dim_size(t.shift_dim);
    const uint32_t shift = t.offset % e_size;
    const uint32_t e = shape_.coord(n, t.shift_dim);
    const uint32_t moved = direction > 0 ? (e + shift) % e_size : (e + e_size - shift) % e_size;
    n = n - e * shape_.stride(t.shift_dim) + moved * shape_.stride(t.shift_dim);
  }
  return n;
}

std::vector<bool> Pod::failed_link_mask() const {
  std::vector<bool> failed(static_cast<size_t>(chip_count()) * dim_count() * 2, false);
  for (const auto& f : spec_.failed_links) {
    if (f.dim >= dim_count() || (f.direction != 1 && f.direction != -1)) {
      reject(spec_, "failed link with a bad dimension or direction");
    }
    ChipId chip = 0;
    try {
      chip = shape_.chip_at(f.slice, f.coords);
    } catch (const std::out_of_range& e) {
      reject(spec_, std::string("failed link: ") + e.what());
    }
    const auto other = wired_neighbour(chip, f.dim, f.direction);
    if (!other)
      reject(spec_, "failed link names a link that does not exist");
    failed[table_index(chip, f.dim, f.direction)] = true;
    failed[table_index(*other, f.dim, -f.direction)] = true;
  }
  mark_dead_chip_links(failed);
  return failed;
}

void Pod::add_ici_links() {
  const std::vector<bool> failed = failed_link_mask();
  link_table_.assign(static_cast<size_t>(chip_count()) * dim_count() * 2, kNoLink);
  links_.reserve(link_table_.size() + (has_dcn() ? 2 * size_t{chip_count()} : 0));
  for (ChipId chip = 0; chip < chip_count(); ++chip) {
    for (uint32_t dim = 0; dim < dim_count(); ++dim) {
      const auto& d = spec_.torus.dims[dim];
      for (const int direction : {+1, -1}) {
        const auto n = wired_neighbour(chip, dim, direction);
        const size_t slot = table_index(chip, dim, direction);
        if (!n || failed[slot])
          continue;
        const uint32_t c = shape_.coord(chip, dim);
        const bool wrap = direction > 0 ? c == d.size - 1 : c == 0;
        link_table_[slot] = static_cast<LinkId>(links_.size());
        links_.push_back(Link{chip, *n, LinkKind::kIci, dim, static_cast<int8_t>(direction), wrap,
                              d.link_bandwidth, d.hop_latency});
      }
    }
  }
}

void Pod::add_dcn_links() {
  const auto& dcn = *spec_.dcn;
  dcn_base_ = static_cast<LinkId>(links_.size());
  for (ChipId chip = 0; chip < chip_count(); ++chip) {
    links_.push_back(Link{chip, dcn_switch(), LinkKind::kDcnUp, kSliceDim, 0, false,
                          dcn.bandwidth_per_chip, dcn.latency});
    links_.push_back(Link{dcn_switch(), chip, LinkKind::kDcnDown, kSliceDim, 0, false,
                          dcn.bandwidth_per_chip, sim::Time::zero()});
  }
}

void Pod::index_out_links() {
  // Counting sort of link ids by source vertex; stable, so LinkId order is kept.
  out_begin_.assign(vertex_count() + 1, 0);
  for (const auto& l : links_)
    ++out_begin_[l.src + 1];
  for (size_t v = 1; v < out_begin_.size(); ++v)
    out_begin_[v] += out_begin_[v - 1];
  out_ids_.resize(links_.size());
  std::vector<uint32_t> next(out_begin_.begin(), out_begin_.end() - 1);
  for (LinkId id = 0; id < links_.size(); ++id)
    out_ids_[next[links_[id].src]++] = id;
}

bool Pod::twisted(uint32_t dim) const {
  const auto& twists = spec_.torus.twists;
  return std::any_of(twists.begin(), twists.end(),
                     [dim](const config::TwistSpec& t) { return t.dim == dim; });
}

}  // namespace podsim::topo
