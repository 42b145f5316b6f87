#include "net_fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace podsim::net::testing {

config::PodSpec pod_spec(const std::vector<Dim>& dims) {
  static constexpr const char* kNames[] = {"x", "y", "z", "w"};
  config::PodSpec spec;
  spec.name = "net-test";
  spec.source_file = "<test>";
  spec.chip.name = "test-chip";
  for (size_t i = 0; i < dims.size(); ++i) {
    config::DimensionSpec d;
    d.name = kNames[i % 4];
    d.size = dims[i].size;
    d.wraparound = dims[i].wrap;
    d.link_bandwidth = sim::Bandwidth::bytes_per_s(dims[i].bytes_per_s);
    d.hop_latency = kHop;
    spec.torus.dims.push_back(d);
  }
  return spec;
}

config::PodSpec with_slices(config::PodSpec spec, uint32_t slices) {
  spec.slices = slices;
  spec.dcn = config::DcnSpec{sim::Bandwidth::bytes_per_s(kDcnBps), kDcnLatency};
  return spec;
}

void RecordingSink::delivered(sim::Simulation& sim, uint64_t tag) {
  if (starting_)
    reentered_ = true;
  deliveries_.push_back(Delivery{tag, sim.now()});
}

sim::Time RecordingSink::time_of(uint64_t tag) const {
  int found = 0;
  sim::Time at;
  for (const Delivery& d : deliveries_) {
    if (d.tag == tag) {
      ++found;
      at = d.at;
    }
  }
  EXPECT_EQ(found, 1) << "tag " << tag;
  return at;
}

RunResult run_all(const topo::Pod& pod, const Options& options,
                  const std::vector<Transfer>& transfers, const std::vector<sim::Time>& starts) {
  sim::Simulation sim;
  auto network = make_network(pod, options);
  RecordingSink sink;
  auto start = [&](uint64_t tag) {
    sink.set_starting(true);
    network->start(sim, transfers[tag], sink, tag);
    sink.set_starting(false);
  };
  for (uint64_t tag = 0; tag < transfers.size(); ++tag) {
    if (tag < starts.size() && starts[tag] > sim::Time::zero()) {
      sim.schedule_at(starts[tag], [&start, tag](sim::Simulation&) { start(tag); });
    } else {
      start(tag);
    }
  }
  sim.run();
  EXPECT_EQ(network->in_flight(), 0u);
  EXPECT_FALSE(sink.reentered());
  RunResult r;
  for (uint64_t tag = 0; tag < transfers.size(); ++tag)
    r.times.push_back(sink.time_of(tag));
  r.order = sink.deliveries();
  r.stats = network->link_stats(sim);
  r.fingerprint = sim.fingerprint();
  return r;
}

double relative_error(sim::Time actual, sim::Time expected) {
  const double e = static_cast<double>(expected.count_ps());
  return std::abs(static_cast<double>(actual.count_ps()) - e) / e;
}

}  // namespace podsim::net::testing
