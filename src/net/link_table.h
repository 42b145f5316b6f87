// What every network model needs to know of the pod's links, computed once per
// network: each LinkId's effective bandwidth (published x efficiency) and
// latency, and how a Transfer's route is found or checked.
//
// Effective bandwidth is an integer (bytes/s), rounded to the nearest byte/s,
// so that all three models start from the very same figure and the
// contention-free cases can be compared exactly against sim::transfer_time().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "net/network.h"
#include "net/zeroed_array.h"
#include "sim/time.h"
#include "topo/link.h"
#include "topo/pod.h"

namespace podsim::net {

// Throws std::invalid_argument unless packet_bytes > 0 and both efficiencies
// lie in (0, 1].
void validate(const Options& options);

// link.bandwidth x ici_efficiency (ICI links) or x dcn_efficiency (DCN up and
// down links), rounded to the nearest byte/s. Throws std::invalid_argument when
// that is zero (a link that can never carry a byte).
sim::Bandwidth effective_bandwidth(const topo::Link& link, const Options& options);

class LinkTable {
 public:
  // O(links) to check every link's effective bandwidth; a link's entry is
  // written the first time it is read (entries start zeroed and untouched,
  // net/zeroed_array.h: a symmetric run on a huge torus reads a handful).
  // Keeps a reference to `pod`, which must outlive the table. Not
  // thread-safe (one table per network, one network per simulation).
  LinkTable(const topo::Pod& pod, const Options& options);

  const topo::Pod& pod() const { return pod_; }
  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  sim::Bandwidth bandwidth(topo::LinkId id) const { return entry(id).bandwidth; }
  sim::Time latency(topo::LinkId id) const { return entry(id).latency; }

  // The links `t` crosses: t.route when given, after checking that it is a
  // walk over existing links from t.src to t.dst (O(hops)); otherwise the pod's
  // default route (topo::route_into), built into `scratch` (cleared first; its
  // capacity is reused, so no allocation in steady state). src == dst gives no
  // links. The span is valid until `scratch` changes. Throws
  // std::invalid_argument on a bad explicit route, and what topo::route_into
  // throws on bad chips or a disconnected pod.
  // A transfer over link classes (t.over_classes, a symmetric run) is refused
  // here: the models that take one call class_route() instead.
  std::span<const topo::LinkId> resolve(const Transfer& t,
                                        std::vector<topo::LinkId>& scratch) const;

  // t.route of a transfer over link classes (t.over_classes), taken as given:
  // each entry the representative of a class, so it need not be a walk and
  // may repeat a link. Throws std::invalid_argument on an empty route or a
  // LinkId the pod lacks. O(hops).
  std::span<const topo::LinkId> class_route(const Transfer& t) const;
  // Sum of the route's link latencies.
  sim::Time route_latency(std::span<const topo::LinkId> route) const;
  // The smallest effective bandwidth on a non-empty route.
  sim::Bandwidth bottleneck(std::span<const topo::LinkId> route) const;

 private:
  // What every start reads of a link, in 24 bytes (a topo::Link is 40): the
  // route check, the latency and the bandwidth share one cache line.
  struct Entry {
    topo::VertexId src = 0;
    topo::VertexId dst = 0;
    sim::Time latency;
    sim::Bandwidth bandwidth;  // effective
  };

  const Entry& entry(topo::LinkId id) const {
    const Entry& e = entries_[id];
    if (e.bandwidth.bytes_per_s() == 0) {
      fill(id);
    }
    return e;
  }
  void fill(topo::LinkId id) const;

  const topo::Pod& pod_;
  Options options_;
  mutable ZeroedArray<Entry> entries_;  // indexed by LinkId; zero bandwidth: not yet filled
};

}  // namespace podsim::net
