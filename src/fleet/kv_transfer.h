// Disaggregation: KV caches moved from prefill to decode replicas over the
// network layer. The prefill and decode copies are slices of one multi-slice
// pod joined by DCN (config::KvTransferSpec); a cache moves as a SEND from
// every chip of its prefill slice to the same chip of its decode slice (the
// two sides are slices of one shape; over ICI, parts of one slice), lowered by coll/ as `podsim
// run` lowers a SEND (the pairs' link-disjoint routes, bytes split over them) and started as net
// transfers on one net::Network driven by the fleet's Simulation. Caches in flight at once share
// the links as the network model says (flow: max-min fair), so there is no hand-written queue.
//
// Cost: the routes between two copies are lowered once per (prefill copy,
// decode copy) pair (O(pod chips), the lowering's setup) and kept; a cache
// then costs one network transfer per route, O(chips of a slice) in all.
//
// Resharded (KvTransferSetup::reshard: the two sides' chips, slice shapes or
// shardings differ): a cache moves as the point-to-point sends of the
// pattern between the two copies' layouts (fleet/kv_reshard.h), each pair's
// bytes its overlap, all started together on the same network; each pair is
// lowered as a one-pair SEND, once, and kept, as are the patterns.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "config/serve_spec.h"
#include "config/workload_spec.h"
#include "fleet/kv_reshard.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "topo/pod.h"

namespace podsim::fleet {

struct KvTransferSetup {
  // The pod the caches cross: the copies' slices joined by DCN, or the one
  // slice they are parts of (ICI). Shared by the runs of one Server.
  std::shared_ptr<const topo::Pod> pod;
  net::Model model = net::Model::kFlow;
  // A copy's dimension sizes; empty: a whole slice of `pod`.
  std::vector<uint32_t> shape;
  // Per replica copy of the fleet: where it sits in `pod` (prefill and decode
  // copies; unified ones are never read).
  std::vector<config::KvPlacement> place;
  // Resharded transfers (fleet/kv_reshard.h), per copy as `place`: its KV
  // layout (null for unified copies), the pod chip of each chip id of its own
  // slice, and its chip's power model (a cache's bytes are priced by the
  // sending copy's).
  bool reshard = false;
  std::vector<std::shared_ptr<const KvLayout>> layout;
  std::vector<std::vector<topo::ChipId>> chips;
  std::vector<config::PowerSpec> power;
};

// The SEND that moves `bytes_per_chip` from every chip of the copy at `from`
// to the chip at the same place in the copy at `to` (copies of `shape`, empty
// for a whole slice): the operation a `podsim run` operation list would give
// for one cache. Chips are taken in the order of their coordinates, the
// first dimension fastest.
config::CollectiveSpec kv_send(const topo::Pod& pod, std::span<const uint32_t> shape,
                               const config::KvPlacement& from, const config::KvPlacement& to,
                               uint64_t bytes_per_chip);

// Throws topo::Partitioned when a cache's SEND from a copy of `from` to a
// copy of `to` (indices into setup.place) joins chips that dead chips or
// failed links of setup.pod cut apart: checked once, before the fleet runs,
// rather than on the first transfer across the cut. O(pod chips + links +
// |from| x |to| x chips of a copy).
void require_kv_routes(const KvTransferSetup& setup, std::span<const uint32_t> from,
                       std::span<const uint32_t> to);

// Resharded (setup.reshard): the same check for every pair of every
// pattern between a copy of `from` and a copy of `to` (each pair of their
// sequence groups). O(pod chips + links + |from| x |to| x groups^2 x pairs).
void require_reshard_routes(const KvTransferSetup& setup, std::span<const uint32_t> from,
                            std::span<const uint32_t> to);

class KvMover final : public net::TransferSink {
 public:
  // Throws std::invalid_argument without a pod, std::out_of_range with a
  // placement or shape outside it.
  explicit KvMover(const KvTransferSetup& setup);
  KvMover(const KvMover&) = delete;
  KvMover& operator=(const KvMover&) = delete;
  ~KvMover() = default;

  // Starts moving a cache now; `done(sim)` is called when its last byte has
  // arrived (from the network's delivery event).
  // `from` and `to` index the setup's placements.
  void start(sim::Simulation& sim, uint32_t from, uint32_t to, uint64_t bytes_per_chip,
             std::function<void(sim::Simulation&)> done);
  // Resharded: moves `tokens` cached tokens of a sequence held by sequence
  // group `src_group` of copy `from` into group `dst_group` of copy `to`,
  // as the pattern's sends (setup.reshard).
  void start_resharded(sim::Simulation& sim, uint32_t from, uint32_t to, uint32_t src_group,
                       uint32_t dst_group, uint64_t tokens,
                       std::function<void(sim::Simulation&)> done);
  uint64_t in_flight() const { return network_->in_flight(); }
  // Over every cache started: the bytes sent (every chip's) and their
  // energy in joules, by the pod's chip's power model (0 without one):
  // dcn_pj_per_byte for each byte sent into the DCN, ici_pj_per_byte_per_hop
  // for each byte of each ICI hop, as engine/energy.h prices a step's links.
  uint64_t bytes_sent() const { return bytes_sent_; }
  double energy_j() const { return energy_pj_ * 1e-12; }

  void delivered(sim::Simulation& sim, uint64_t tag) override;

 private:
  // One route of a pair: its chips, its links, and which of the pair's k
  // routes it is (the SEND's bytes split over them as coll/ splits them).
  struct Route {
    topo::ChipId src = 0;
    topo::ChipId dst = 0;
    uint32_t index = 0;
    uint32_t of = 1;
    std::vector<topo::LinkId> links;
  };
  struct Moving {
    uint32_t left = 0;  // transfers not yet delivered
    std::function<void(sim::Simulation&)> done;
  };
  const std::vector<Route>& routes(uint32_t from, uint32_t to);
  // Resharded: one pair's routes, and a pattern between two copies' groups.
  const std::vector<Route>& pair_routes(topo::ChipId src, topo::ChipId dst);
  const std::vector<KvPairBytes>& pattern(uint32_t from, uint32_t to, uint32_t src_group,
                                          uint32_t dst_group);
  uint32_t take_slot(uint32_t transfers, std::function<void(sim::Simulation&)> done);
  void send(sim::Simulation& sim, const Route& r, uint64_t bytes, const config::PowerSpec& power,
            uint32_t slot);

  KvTransferSetup setup_;
  std::unique_ptr<net::Network> network_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Route>> routes_;
  std::map<std::pair<topo::ChipId, topo::ChipId>, std::vector<Route>> pair_routes_;
  using PatternKey = std::tuple<const KvLayout*, uint32_t, const KvLayout*, uint32_t>;
  std::map<PatternKey, std::vector<KvPairBytes>> patterns_;
  std::vector<Moving> moving_;
  std::vector<uint32_t> free_;
  uint64_t bytes_sent_ = 0;
  double energy_pj_ = 0;
};

}  // namespace podsim::fleet
