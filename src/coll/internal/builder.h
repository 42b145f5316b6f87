// Shared by the lowering of every collective kind: the chip groups a plan
// refers to (built once per plan and shared by every phase that uses them)
// and the "units" a collective runs over -- one ring or line per torus
// dimension under its axes (or one snake ring per axis), and the slices.
//
// Internal to src/coll.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "coll/plan.h"
#include "config/workload_spec.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll::internal {

// How a twisted dimension (one whose wraparound lands shifted along other
// dimensions) is run: as a line over its straight links, or as a ring whose
// wrap step follows the true cycle through the twisted link.
enum class TwistedAs : uint8_t { kLine, kCycle };

// One ring or line of a collective: a set of disjoint groups of `size` chips.
struct Unit {
  uint32_t group_set = 0;
  uint32_t size = 1;
  bool wraps = false;          // the groups close into rings
  int32_t walk_dim = kNoWalk;  // transfers to a neighbour walk this dimension
  bool dcn = false;            // over the slices, through the DCN fabric
  uint32_t dim = topo::kSliceDim;
  std::string label;  // "x", "x line", "x cycle", "x,y snake", "slice"
};

class Builder {
 public:
  // Throws std::invalid_argument on an axis the mesh does not have.
  Builder(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c);

  const topo::Pod& pod() const { return pod_; }
  const topo::DeviceMesh& mesh() const { return mesh_; }
  const config::CollectiveSpec& collective() const { return c_; }

  // The torus dimensions of size > 1 under the collective's axes (axes in
  // the order given, each axis' dimensions in its order), and the ICI axes.
  const std::vector<uint32_t>& ici_dims() const { return ici_dims_; }
  const std::vector<std::string>& ici_axes() const { return ici_axes_; }
  const std::vector<std::string>& dcn_axes() const { return dcn_axes_; }
  // ici_dims() whose wraparound is twisted, in the same order.
  const std::vector<uint32_t>& twisted_dims() const { return twisted_dims_; }

  // The ICI units: one per dimension of ici_dims(), each twisted one run as
  // `twisted_as[i]` (indexed like twisted_dims()); with `snake`, one per ICI
  // axis instead, over its chips in snake order.
  std::vector<Unit> ici_units(bool snake, std::span<const TwistedAs> twisted_as);
  // The unit of one dimension of ici_dims() (or kSliceDim).
  Unit dim_unit(uint32_t dim, TwistedAs twisted_as = TwistedAs::kLine);

  // Group sets, built on first use: the groups of a collective over `axes`
  // (mesh order, snake over several dimensions), or of chips differing only
  // along one torus dimension (coordinate order) or only in their slice.
  uint32_t axes_group_set(std::span<const std::string> axes);
  uint32_t dim_group_set(uint32_t dim);
  // The cycles of the +dim walk, each in walk order: the dimension's rings
  // (or lines, without wraparound); on a twisted dimension its true cycles,
  // which pass through several lines (cycle_length(dim) chips each).
  uint32_t cycle_group_set(uint32_t dim);

  Plan& plan() { return plan_; }
  Plan take() { return std::move(plan_); }

 private:
  uint32_t add_group_set(const std::string& key, std::vector<std::vector<topo::ChipId>> groups);
  uint32_t find_group_set(const std::string& key) const;  // or kNone

  const topo::Pod& pod_;
  const topo::DeviceMesh& mesh_;
  const config::CollectiveSpec& c_;
  std::vector<uint32_t> ici_dims_;
  std::vector<std::string> ici_axes_;
  std::vector<std::string> dcn_axes_;
  std::vector<uint32_t> twisted_dims_;
  std::vector<std::string> set_keys_;
  Plan plan_;
};

// "x,y": names joined with `sep` (reports' schedules use " " to stay out of
// the way of CSV commas).
std::string join_names(std::span<const std::string> names, const char* sep = ",");

// ceil(a / b), and a when b is 0.
inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? a : (a + b - 1) / b;
}

// The lowerings, one per family (lower_*.cc); each fills builder.plan().
void lower_ring_family(Builder& b, std::span<const TwistedAs> twisted_as);
void lower_all_to_all(Builder& b, bool direct);
// split: every level, a ring, runs each half of the buffer one way round the
// whole ring (lower_point.cc); a plan with a line level is built unsplit.
void lower_broadcast(Builder& b, std::span<const TwistedAs> twisted_as, bool split);
void lower_permute(Builder& b);
void lower_send(Builder& b);

}  // namespace podsim::coll::internal
