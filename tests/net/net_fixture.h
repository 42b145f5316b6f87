// Test helpers for the network models: pods built in code with round figures
// (so expected times can be worked out by hand), a sink that records every
// delivery, and a one-call runner.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "config/topology_spec.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/pod.h"
#include "topo/routing.h"

namespace podsim::sim {
// How gtest prints a Time in failure messages (found by argument-dependent
// look-up; test code only).
inline void PrintTo(Time t, std::ostream* os) {
  *os << t.to_string() << " (" << t.count_ps() << " ps)";
}
}  // namespace podsim::sim

namespace podsim::net::testing {

inline constexpr uint64_t kGB = 1'000'000'000;  // bytes/s per GB/s
inline constexpr uint64_t kMiB = 1024 * 1024;
inline constexpr uint64_t kLinkBps = 45 * kGB;  // every ICI link below, unless said otherwise
inline constexpr sim::Time kHop = sim::Time::us(1);
inline constexpr uint64_t kDcnBps = 25 * kGB;
inline constexpr sim::Time kDcnLatency = sim::Time::us(10);

struct Dim {
  uint32_t size = 1;
  bool wrap = false;
  uint64_t bytes_per_s = kLinkBps;
};

// One slice; every hop kHop.
config::PodSpec pod_spec(const std::vector<Dim>& dims);
// The same, in `slices` slices joined by a DCN of kDcnBps per chip and kDcnLatency.
config::PodSpec with_slices(config::PodSpec spec, uint32_t slices);

inline topo::Pod line(uint32_t n) {
  return topo::Pod(pod_spec({{n, false}}));
}
inline topo::Pod ring(uint32_t n) {
  return topo::Pod(pod_spec({{n, true}}));
}
inline topo::Pod torus2(uint32_t n) {
  return topo::Pod(pod_spec({{n, true}, {n, true}}));
}
inline topo::Pod mesh2(uint32_t n) {
  return topo::Pod(pod_spec({{n, false}, {n, false}}));
}
inline topo::Pod torus3(uint32_t n) {
  return topo::Pod(pod_spec({{n, true}, {n, true}, {n, true}}));
}

// A transfer over the default route (spelled out to keep -Wextra quiet about
// the defaulted route member).
inline Transfer transfer(topo::ChipId src, topo::ChipId dst, uint64_t bytes) {
  return Transfer{src, dst, bytes, {}};
}

struct Delivery {
  uint64_t tag = 0;
  sim::Time at;
  friend bool operator==(const Delivery&, const Delivery&) = default;
};

// Records deliveries in order; flags a delivery made from inside start().
class RecordingSink final : public TransferSink {
 public:
  void delivered(sim::Simulation& sim, uint64_t tag) override;

  const std::vector<Delivery>& deliveries() const { return deliveries_; }
  // Time of the delivery of `tag`; fails the test if it was not delivered once.
  sim::Time time_of(uint64_t tag) const;
  void set_starting(bool v) { starting_ = v; }
  bool reentered() const { return reentered_; }

 private:
  std::vector<Delivery> deliveries_;
  bool starting_ = false;
  bool reentered_ = false;
};

// Starts transfer i (tag i) at starts[i] (time zero when starts is shorter),
// runs the simulation to the end and returns what happened. Checks on the way
// that no delivery happens inside start() and that nothing stays in flight.
struct RunResult {
  std::vector<sim::Time> times;  // by tag
  std::vector<Delivery> order;
  LinkStats stats;
  uint64_t fingerprint = 0;
};
RunResult run_all(const topo::Pod& pod, const Options& options,
                  const std::vector<Transfer>& transfers,
                  const std::vector<sim::Time>& starts = {});

// Transfers with explicit routes that own their route storage (a Transfer only
// holds a span). Not copyable: the spans point into `routes`.
struct RoutedPattern {
  RoutedPattern() = default;
  RoutedPattern(const RoutedPattern&) = delete;
  RoutedPattern& operator=(const RoutedPattern&) = delete;
  RoutedPattern(RoutedPattern&&) = default;  // moves keep the route buffers in place
  RoutedPattern& operator=(RoutedPattern&&) = default;

  std::vector<std::vector<topo::LinkId>> routes;  // by transfer
  std::vector<Transfer> transfers;
};

// Every chip sends `block` bytes to every other chip at once, along
// topo::route; a pair whose route meets a tie (exactly opposite on an even
// ring) sends half each way round (TieBreak::kPlus, then kMinus), as
// coll/executor.cc does. Transfers are listed by source, then destination.
RoutedPattern all_to_all(const topo::Pod& pod, uint64_t block);

// Bytes each link carries over the pattern (default routes for transfers
// without an explicit one), indexed by LinkId.
std::vector<uint64_t> link_loads(const topo::Pod& pod, const std::vector<Transfer>& transfers);
// The bandwidth lower bound on any model's completion of transfers started
// together: max over links of transfer_time(load, published link bandwidth)
// (efficiency 1).
sim::Time bandwidth_bound(const topo::Pod& pod, const std::vector<Transfer>& transfers);
// The last delivery of a run.
sim::Time completion(const RunResult& r);

// A relative error of `actual` against `expected`.
double relative_error(sim::Time actual, sim::Time expected);

}  // namespace podsim::net::testing
