// Test helpers for the network models: pods built in code with round figures
// (so expected times can be worked out by hand), a sink that records every
// delivery, and a one-call runner.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/topology_spec.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "topo/pod.h"

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

// A relative error of `actual` against `expected`.
double relative_error(sim::Time actual, sim::Time expected);

}  // namespace podsim::net::testing
