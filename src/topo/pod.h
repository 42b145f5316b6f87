// The topo layer: a pod as a directed graph of chips and links.
//
// Pod is built once from a validated config::PodSpec and never changes. It owns
//  - a flat vector of Links (LinkId = index), in a fixed order: ICI links by
//    source chip, then dimension, then direction (+ before -); then, when the pod
//    has several slices, each chip's DCN up link followed by its down link;
//  - a table (chip, dim, direction) -> LinkId for O(1) neighbour look-ups;
//  - a Boost.Graph adjacency_list with the same edges (topo/pod_graph.h),
//    added in LinkId order so that graph searches break ties the same way on
//    every run; built on first use (dimension-order routing never needs it),
//    once, under std::call_once, so a Pod shared by threads stays safe to read.
// A Pod is neither copied nor moved: it is large and has one owner (make it
// where it lives, or hold it by pointer).
// Failed links are absent (both directions of the physical link), and so
// are every link of a dead chip; a degraded link has its bandwidth scaled
// and its latency raised, both directions (topo/pod_faults.cc). Link
// bandwidths are otherwise the published figures; calibration is left to
// the network model.
// Routing is in topo/routing.h (several disjoint routes per pair in
// topo/multipath.h), pod-level figures in topo/metrics.h, logical device
// meshes in topo/mesh.h.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "config/topology_spec.h"
#include "topo/link.h"
#include "topo/shape.h"

namespace podsim::topo {

class PodGraph;  // topo/pod_graph.h

class Pod {
 public:
  // Throws std::invalid_argument on a spec the loader should have rejected
  // (twist or failed link naming a missing dimension, link or chip). O(chips x dims).
  explicit Pod(config::PodSpec spec);
  Pod(const Pod&) = delete;
  Pod& operator=(const Pod&) = delete;
  Pod(Pod&&) = delete;
  Pod& operator=(Pod&&) = delete;
  ~Pod();  // pod.cc, where PodGraph is complete

  const config::PodSpec& spec() const { return spec_; }
  const Shape& shape() const { return shape_; }
  uint32_t chip_count() const { return shape_.chip_count(); }
  uint32_t slice_count() const { return shape_.slice_count(); }
  uint32_t dim_count() const { return shape_.dim_count(); }
  uint32_t dim_size(uint32_t dim) const { return shape_.dim_size(dim); }
  bool wraparound(uint32_t dim) const { return spec_.torus.dims[dim].wraparound; }
  bool has_twists() const { return !spec_.torus.twists.empty(); }
  // True when some twist shifts `dim`'s wraparound, so its wrap links land on
  // another line (and its true cycle passes through several). O(twists).
  bool twisted(uint32_t dim) const;
  // Links are missing: failed links, or the links of dead chips.
  bool has_failed_links() const { return !spec_.failed_links.empty() || !spec_.dead_chips.empty(); }
  // Any fault (failed or degraded links, dead chips, stragglers): the pod
  // is no longer the same seen from every chip.
  bool has_faults() const { return spec_.has_faults(); }
  // A dead chip has no links; a workload that needs it is refused by the
  // loader. O(1).
  bool is_dead(ChipId chip) const { return !dead_.empty() && dead_[chip]; }
  // The straggler entry of `chip`, or null. O(1).
  const config::StragglerSpec* straggler(ChipId chip) const {
    return straggler_index_.empty() || straggler_index_[chip] < 0
               ? nullptr
               : &spec_.stragglers[static_cast<size_t>(straggler_index_[chip])];
  }

  std::vector<uint32_t> coords(ChipId chip) const { return shape_.coords(chip); }
  uint32_t coord(ChipId chip, uint32_t dim) const { return shape_.coord(chip, dim); }
  uint32_t slice_of(ChipId chip) const { return shape_.slice_of(chip); }
  ChipId chip_at(uint32_t slice, std::span<const uint32_t> coords) const {
    return shape_.chip_at(slice, coords);
  }

  // The link leaving `chip` along `dim` in `direction` (+1 or -1), following
  // wraparound and twists; nullopt at the end of a line, on a dimension of
  // size 1 and for a failed link. O(1).
  std::optional<LinkId> link_from(ChipId chip, uint32_t dim, int direction) const {
    const LinkId id = link_table_[table_index(chip, dim, direction)];
    if (id == kNoLink)
      return std::nullopt;
    return id;
  }
  // The chip at the other end of link_from(chip, dim, direction).
  std::optional<ChipId> neighbour(ChipId chip, uint32_t dim, int direction) const {
    const auto id = link_from(chip, dim, direction);
    if (!id)
      return std::nullopt;
    return links_[*id].dst;
  }

  // The DCN fabric: present iff the pod has several slices.
  bool has_dcn() const { return slice_count() > 1; }
  VertexId dcn_switch() const { return chip_count(); }
  // Precondition: has_dcn().
  LinkId dcn_up(ChipId chip) const { return dcn_base_ + 2 * chip; }
  LinkId dcn_down(ChipId chip) const { return dcn_base_ + 2 * chip + 1; }

  uint32_t vertex_count() const { return chip_count() + (has_dcn() ? 1 : 0); }
  std::span<const Link> links() const { return links_; }
  const Link& link(LinkId id) const { return links_[id]; }
  // Links leaving `vertex`, in LinkId order.
  std::span<const LinkId> out_links(VertexId vertex) const {
    return std::span<const LinkId>(out_ids_).subspan(out_begin_[vertex],
                                                     out_begin_[vertex + 1] - out_begin_[vertex]);
  }
  // The links as a Boost graph, for searches over it (ici_bfs.h; include
  // topo/pod_graph.h to use it). Built on first use, once, whichever thread
  // asks first: most runs route by dimension order and never need it.
  const PodGraph& graph() const;

 private:
  static constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();

  size_t table_index(ChipId chip, uint32_t dim, int direction) const {
    return (static_cast<size_t>(chip) * dim_count() + dim) * 2 + (direction < 0 ? 1 : 0);
  }
  // The chip a link along (dim, direction) would reach if none had failed.
  std::optional<ChipId> wired_neighbour(ChipId chip, uint32_t dim, int direction) const;
  std::vector<bool> failed_link_mask() const;
  // pod_faults.cc: the links of dead chips into `failed`; degraded links'
  // bandwidth and latency; the dead and straggler look-ups.
  void mark_dead_chip_links(std::vector<bool>& failed) const;
  void degrade_links();
  void index_chip_faults();
  ChipId fault_chip(uint32_t slice, std::span<const uint32_t> coords, const char* what) const;
  void add_ici_links();
  void add_dcn_links();
  void index_out_links();

  config::PodSpec spec_;
  Shape shape_;
  std::vector<Link> links_;
  std::vector<LinkId> link_table_;   // chip_count x dims x 2 entries, kNoLink when absent
  LinkId dcn_base_ = 0;              // id of chip 0's DCN up link
  std::vector<uint32_t> out_begin_;  // CSR offsets into out_ids_, vertex_count + 1 entries
  std::vector<LinkId> out_ids_;
  std::vector<bool> dead_;                // empty without dead chips
  std::vector<int32_t> straggler_index_;  // chip -> stragglers index or -1; empty without
  mutable std::once_flag graph_once_;
  mutable std::unique_ptr<PodGraph> graph_;
};

}  // namespace podsim::topo
