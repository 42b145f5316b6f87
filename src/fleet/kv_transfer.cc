#include "fleet/kv_transfer.h"

#include <array>
#include <stdexcept>
#include <string>

#include "coll/plan.h"
#include "engine/op_list.h"
#include "topo/components.h"
#include "topo/mesh.h"

namespace podsim::fleet {

config::CollectiveSpec kv_send(const topo::Pod& pod, std::span<const uint32_t> shape,
                               const config::KvPlacement& from, const config::KvPlacement& to,
                               uint64_t bytes_per_chip) {
  config::CollectiveSpec c;
  c.kind = config::CollectiveKind::kSend;
  c.bytes = bytes_per_chip;
  std::vector<uint32_t> sizes(shape.begin(), shape.end());
  if (sizes.empty())
    for (const uint32_t last : pod.coords(pod.chip_count() / pod.slice_count() - 1))
      sizes.push_back(last + 1);
  uint64_t chips = 1;
  for (const uint32_t n : sizes)
    chips *= n;
  c.pairs.reserve(chips);
  for (uint64_t i = 0; i < chips; ++i) {
    config::ChipPair p{{from.slice, {}}, {to.slice, {}}};
    uint64_t rest = i;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const auto x = static_cast<uint32_t>(rest % sizes[d]);
      rest /= sizes[d];
      p.src.coords.push_back((d < from.origin.size() ? from.origin[d] : 0) + x);
      p.dst.coords.push_back((d < to.origin.size() ? to.origin[d] : 0) + x);
    }
    c.pairs.push_back(std::move(p));
  }
  return c;
}

void require_kv_routes(const KvTransferSetup& setup, std::span<const uint32_t> from,
                       std::span<const uint32_t> to) {
  const topo::Pod& pod = *setup.pod;
  if (!pod.has_failed_links())
    return;
  const topo::Components parts = topo::ici_components(pod);
  for (const uint32_t f : from) {
    for (const uint32_t t : to) {
      const config::CollectiveSpec send =
          kv_send(pod, setup.shape, setup.place.at(f), setup.place.at(t), 0);
      for (const config::ChipPair& p : send.pairs) {
        const std::array<topo::ChipId, 2> ends{pod.chip_at(p.src.slice, p.src.coords),
                                               pod.chip_at(p.dst.slice, p.dst.coords)};
        topo::require_reachable(pod, parts, ends,
                                "the KV cache transfer from replica copy " + std::to_string(f) +
                                    " to copy " + std::to_string(t));
      }
    }
  }
}

void require_reshard_routes(const KvTransferSetup& setup, std::span<const uint32_t> from,
                            std::span<const uint32_t> to) {
  const topo::Pod& pod = *setup.pod;
  if (!pod.has_failed_links())
    return;
  const topo::Components parts = topo::ici_components(pod);
  for (const uint32_t f : from) {
    for (const uint32_t t : to) {
      const KvLayout& a = *setup.layout.at(f);
      const KvLayout& b = *setup.layout.at(t);
      for (uint32_t gs = 0; gs < a.groups; ++gs) {
        for (uint32_t gd = 0; gd < b.groups; ++gd) {
          for (const KvPairBytes& p : kv_reshard(a, gs, b, gd)) {
            const std::array<topo::ChipId, 2> ends{setup.chips.at(f).at(p.src),
                                                   setup.chips.at(t).at(p.dst)};
            topo::require_reachable(pod, parts, ends,
                                    "the resharded KV cache transfer from replica copy " +
                                        std::to_string(f) + " to copy " + std::to_string(t));
          }
        }
      }
    }
  }
}

KvMover::KvMover(const KvTransferSetup& setup) : setup_(setup) {
  if (!setup_.pod)
    throw std::invalid_argument("KV transfers need a pod");
  const topo::Pod& pod = *setup_.pod;
  for (const config::KvPlacement& p : setup_.place) {
    // A placement off the pod throws here (std::out_of_range), not mid-run.
    for (const config::ChipPair& pair : kv_send(pod, setup_.shape, p, p, 0).pairs)
      (void)pod.chip_at(pair.src.slice, pair.src.coords);
  }
  network_ = net::make_network(pod, engine::network_options(pod, setup_.model));
}

namespace {

// A SEND's plan as `podsim run` lowers it: each pair's routes in a row,
// numbered, each told how many its pair has.
template <typename Route>
void plan_routes(const topo::Pod& pod, const config::CollectiveSpec& send,
                 std::vector<Route>& out) {
  const coll::Plan plan = coll::lower(pod, topo::DeviceMesh(pod, {}), send);
  for (const coll::Share& share : plan.shares)
    for (const coll::Phase& phase : share.phases)
      for (const coll::SendPath& p : phase.paths)
        out.push_back(Route{p.src, p.dst, 0, 1, p.route});
  // Number each pair's routes (they come in a row) and tell each how many.
  for (size_t first = 0; first < out.size();) {
    size_t end = first + 1;
    while (end < out.size() && out[end].src == out[first].src && out[end].dst == out[first].dst)
      ++end;
    for (size_t i = first; i < end; ++i) {
      out[i].index = static_cast<uint32_t>(i - first);
      out[i].of = static_cast<uint32_t>(end - first);
    }
    first = end;
  }
}

}  // namespace

const std::vector<KvMover::Route>& KvMover::routes(uint32_t from, uint32_t to) {
  auto [it, fresh] = routes_.try_emplace({from, to});
  if (fresh) {
    const topo::Pod& pod = *setup_.pod;
    plan_routes(pod, kv_send(pod, setup_.shape, setup_.place.at(from), setup_.place.at(to), 1),
                it->second);
  }
  return it->second;
}

const std::vector<KvMover::Route>& KvMover::pair_routes(topo::ChipId src, topo::ChipId dst) {
  auto [it, fresh] = pair_routes_.try_emplace({src, dst});
  if (fresh) {
    const topo::Pod& pod = *setup_.pod;
    config::CollectiveSpec send;
    send.kind = config::CollectiveKind::kSend;
    send.bytes = 1;
    config::ChipPair p;
    p.src.slice = pod.slice_of(src);
    p.dst.slice = pod.slice_of(dst);
    for (const uint32_t x : pod.coords(src))
      p.src.coords.push_back(x);
    for (const uint32_t x : pod.coords(dst))
      p.dst.coords.push_back(x);
    send.pairs.push_back(std::move(p));
    plan_routes(pod, send, it->second);
  }
  return it->second;
}

const std::vector<KvPairBytes>& KvMover::pattern(uint32_t from, uint32_t to, uint32_t src_group,
                                                 uint32_t dst_group) {
  const KvLayout& a = *setup_.layout.at(from);
  const KvLayout& b = *setup_.layout.at(to);
  auto [it, fresh] = patterns_.try_emplace(PatternKey{&a, src_group, &b, dst_group});
  if (fresh)
    it->second = kv_reshard(a, src_group, b, dst_group);
  return it->second;
}

uint32_t KvMover::take_slot(uint32_t transfers, std::function<void(sim::Simulation&)> done) {
  uint32_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(moving_.size());
    moving_.emplace_back();
  }
  moving_[slot] = Moving{transfers, std::move(done)};
  return slot;
}

void KvMover::send(sim::Simulation& sim, const Route& r, uint64_t bytes,
                   const config::PowerSpec& power, uint32_t slot) {
  const topo::Pod& pod = *setup_.pod;
  bytes_sent_ += bytes;
  if (power.modelled) {
    double pj_per_byte = 0;
    for (const topo::LinkId l : r.links) {
      const topo::LinkKind kind = pod.link(l).kind;
      if (kind == topo::LinkKind::kIci)
        pj_per_byte += power.ici_pj_per_byte_per_hop;
      else if (kind == topo::LinkKind::kDcnUp)
        pj_per_byte += power.dcn_pj_per_byte;
    }
    energy_pj_ += static_cast<double>(bytes) * pj_per_byte;
  }
  network_->start(sim, net::Transfer{r.src, r.dst, bytes, r.links}, *this, slot);
}

void KvMover::start_resharded(sim::Simulation& sim, uint32_t from, uint32_t to, uint32_t src_group,
                              uint32_t dst_group, uint64_t tokens,
                              std::function<void(sim::Simulation&)> done) {
  const std::vector<KvPairBytes>& sends = pattern(from, to, src_group, dst_group);
  const std::vector<topo::ChipId>& src_chips = setup_.chips.at(from);
  const std::vector<topo::ChipId>& dst_chips = setup_.chips.at(to);
  uint32_t transfers = 0;
  for (const KvPairBytes& p : sends)
    transfers +=
        static_cast<uint32_t>(pair_routes(src_chips.at(p.src), dst_chips.at(p.dst)).size());
  const uint32_t slot = take_slot(transfers, std::move(done));
  const config::PowerSpec& power = setup_.power.at(from);
  for (const KvPairBytes& p : sends) {
    const uint64_t pair_bytes = tokens * p.bytes_per_token;
    for (const Route& r : pair_routes(src_chips.at(p.src), dst_chips.at(p.dst)))
      send(sim, r, pair_bytes / r.of + (r.index < pair_bytes % r.of ? 1 : 0), power, slot);
  }
}

void KvMover::start(sim::Simulation& sim, uint32_t from, uint32_t to, uint64_t bytes_per_chip,
                    std::function<void(sim::Simulation&)> done) {
  const std::vector<Route>& rs = routes(from, to);
  const uint32_t slot = take_slot(static_cast<uint32_t>(rs.size()), std::move(done));
  const config::PowerSpec& power = setup_.pod->spec().chip.power;
  // coll/'s split: equal parts, the first routes one byte more.
  for (const Route& r : rs)
    send(sim, r, bytes_per_chip / r.of + (r.index < bytes_per_chip % r.of ? 1 : 0), power, slot);
}

void KvMover::delivered(sim::Simulation& sim, uint64_t tag) {
  const auto slot = static_cast<uint32_t>(tag);
  Moving& m = moving_[slot];
  if (--m.left != 0)
    return;
  const std::function<void(sim::Simulation&)> done = std::move(m.done);
  free_.push_back(slot);
  done(sim);
}

}  // namespace podsim::fleet
