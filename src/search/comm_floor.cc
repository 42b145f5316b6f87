#include "search/comm_floor.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace podsim::search {

CommFloor::CommFloor(const topo::Pod& pod, workload::MeshAxes axes) : axes_(std::move(axes)) {
  // Into chips only (not into the DCN fabric's switch).
  std::vector<uint64_t> in(pod.chip_count(), 0);
  for (const topo::Link& l : pod.links()) {
    if (l.dst < in.size())
      in[l.dst] += l.bandwidth.bytes_per_s();
  }
  max_in_bytes_per_s_ = in.empty() ? 0 : *std::max_element(in.begin(), in.end());
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

sim::Time CommFloor::of(const workload::Instruction& ins) const {
  if (const auto* t = std::get_if<workload::StageTransfer>(&ins.body))
    return receive(t->bytes);
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
      return receive(static_cast<uint64_t>(v * (n - 1) / n));
    case config::CollectiveKind::kReduceScatter:
    case config::CollectiveKind::kAllToAll:
      return receive(static_cast<uint64_t>(v * (n - 1) / (static_cast<u128>(n) * n)));
    default:
      return sim::Time::zero();
  }
}

}  // namespace podsim::search
