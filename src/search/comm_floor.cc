#include "search/comm_floor.h"

#include <algorithm>
#include <vector>

#include "engine/workload_mesh.h"

namespace podsim::search {

CommFloor::CommFloor(const topo::Pod& pod, const topo::DeviceMesh& mesh)
    : mesh_(&mesh), pod_(&pod), axes_(engine::mesh_axes(mesh)) {
  // Into chips only (not into the DCN fabric's switch).
  std::vector<uint64_t> in(pod.chip_count(), 0);
  for (const topo::Link& l : pod.links()) {
    if (l.dst < in.size())
      in[l.dst] += l.bandwidth.bytes_per_s();
  }
  max_in_bytes_per_s_ = in.empty() ? 0 : *std::max_element(in.begin(), in.end());
  for (const topo::Link& l : pod.links()) {
    if (l.kind == topo::LinkKind::kIci) {
      min_ici_latency_ = std::min(min_ici_latency_, l.latency);
    } else if (l.src < pod.chip_count()) {
      // A chip's up link into the fabric carries the DCN's latency (the
      // down link none): every route through the fabric pays it once.
      dcn_latency_ = std::min(dcn_latency_, l.latency);
    }
  }
  if (min_ici_latency_ == sim::Time::max())
    min_ici_latency_ = sim::Time::zero();  // no ICI link: no ICI floor
  one_hop_ = std::min(min_ici_latency_, dcn_latency_);
}

sim::Time CommFloor::receive(uint64_t bytes) const {
  if (bytes == 0 || max_in_bytes_per_s_ == 0)
    return sim::Time::zero();
  // Rounded down (sim::transfer_time rounds up), in 128 bits.
  __extension__ using u128 = unsigned __int128;  // GCC and Clang; silences -Wpedantic
  const u128 ps = static_cast<u128>(bytes) * 1'000'000'000'000u / max_in_bytes_per_s_;
  const u128 cap = static_cast<u128>(sim::Time::max().count_ps());
  return sim::Time::ps(static_cast<int64_t>(ps < cap ? ps : cap));
}

sim::Time CommFloor::latency(const std::vector<std::string>& axes) const {
  uint64_t hops = 0;
  bool crosses_slices = false;
  for (const std::string& name : axes) {
    for (const topo::MeshAxisSpec& a : mesh_->axes()) {
      if (a.name != name)
        continue;
      for (const uint32_t d : a.dims) {
        if (d == topo::kSliceDim) {
          crosses_slices = true;
          continue;
        }
        const config::DimensionSpec& dim = pod_->spec().torus.dims.at(d);
        hops += dim.wraparound ? dim.size / 2 : dim.size - 1;
      }
    }
  }
  if (crosses_slices)
    return dcn_latency_ == sim::Time::max() ? sim::Time::zero() : dcn_latency_;
  if (!pod_->spec().torus.twists.empty())
    hops = std::min<uint64_t>(hops, 1);
  const auto ici = sim::Time::ps(min_ici_latency_.count_ps() * static_cast<int64_t>(hops));
  return std::min(ici, dcn_latency_);
}

sim::Time CommFloor::of(const workload::Instruction& ins) const {
  if (const auto* t = std::get_if<workload::StageTransfer>(&ins.body))
    return std::max(receive(t->bytes), one_hop_ == sim::Time::max() ? sim::Time::zero() : one_hop_);
  const auto* c = std::get_if<config::CollectiveSpec>(&ins.body);
  if (c == nullptr)
    return sim::Time::zero();
  const uint64_t n = axes_.product(c->axes);
  if (n < 2)
    return sim::Time::zero();
  // Whole bytes, rounded down; in 128 bits since V x n may not fit in 64.
  __extension__ using u128 = unsigned __int128;
  const u128 v = c->bytes;
  switch (c->kind) {
    case config::CollectiveKind::kAllGather:
    case config::CollectiveKind::kAllReduce:
      return std::max(receive(static_cast<uint64_t>(v * (n - 1) / n)), latency(c->axes));
    case config::CollectiveKind::kReduceScatter:
    case config::CollectiveKind::kAllToAll:
      return std::max(receive(static_cast<uint64_t>(v * (n - 1) / (static_cast<u128>(n) * n))),
                      latency(c->axes));
    default:
      return sim::Time::zero();
  }
}

}  // namespace podsim::search
