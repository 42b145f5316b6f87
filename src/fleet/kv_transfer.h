// Disaggregation: KV caches moved from prefill to decode replicas over the
// network layer. The prefill and decode copies are slices of one multi-slice
// pod joined by DCN (config::KvTransferSpec); a cache moves as a SEND from
// every chip of its prefill slice to the same chip of its decode slice (the
// two sides are slices of one shape), lowered by coll/ as `podsim run` lowers
// a SEND and played by a coll::CollectiveRun on one net::Network driven by the
// fleet's Simulation. Caches in flight at once share the links as the network
// model says (flow: max-min fair), so there is no hand-written queue.
//
// Cost per cache: a plan of `chips` paths and a CollectiveRun (O(pod chips +
// links) of counters, routes for its 2 x chips chips only); one network
// transfer per chip.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "config/workload_spec.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "topo/pod.h"

namespace podsim::coll {
class CollectiveRun;
}

namespace podsim::fleet {

struct KvTransferSetup {
  // The slices joined by DCN; shared by the runs of one Server.
  std::shared_ptr<const topo::Pod> pod;
  net::Model model = net::Model::kFlow;
  // Per replica copy of the fleet: its slice of `pod` (prefill and decode
  // copies; unified ones are never read).
  std::vector<uint32_t> slice;
};

// The SEND that moves `bytes_per_chip` from every chip of slice `from` to the
// same chip (same coordinates) of slice `to`: the operation a `podsim run`
// operation list would give for one cache.
config::CollectiveSpec kv_send(const topo::Pod& pod, uint32_t from, uint32_t to,
                               uint64_t bytes_per_chip);

class KvMover {
 public:
  // Throws std::invalid_argument without a pod of several slices.
  explicit KvMover(const KvTransferSetup& setup);
  ~KvMover();
  KvMover(const KvMover&) = delete;
  KvMover& operator=(const KvMover&) = delete;

  // Starts moving a cache now; `done(sim)` is called (from an event) when its
  // last byte has arrived. Returns a handle for release().
  uint32_t start(sim::Simulation& sim, uint32_t from_slice, uint32_t to_slice,
                 uint64_t bytes_per_chip, std::function<void(sim::Simulation&)> done);
  // Frees a finished transfer's run (not from within its done callback).
  void release(uint32_t handle);
  uint64_t in_flight() const { return network_->in_flight(); }

 private:
  std::shared_ptr<const topo::Pod> pod_;
  std::unique_ptr<net::Network> network_;
  std::vector<std::unique_ptr<coll::CollectiveRun>> runs_;
  std::vector<uint32_t> free_;
};

}  // namespace podsim::fleet
