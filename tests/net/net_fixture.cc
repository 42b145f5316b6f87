#include "net_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>
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

RoutedPattern all_to_all(const topo::Pod& pod, uint64_t block) {
  RoutedPattern p;
  struct Leg {
    topo::ChipId src, dst;
    uint64_t bytes;
  };
  std::vector<Leg> legs;
  for (topo::ChipId src = 0; src < pod.chip_count(); ++src) {
    for (topo::ChipId dst = 0; dst < pod.chip_count(); ++dst) {
      if (src == dst)
        continue;
      if (topo::route_has_tie(pod, src, dst)) {
        p.routes.push_back(topo::route(pod, src, dst, topo::TieBreak::kPlus));
        legs.push_back(Leg{src, dst, block / 2});
        p.routes.push_back(topo::route(pod, src, dst, topo::TieBreak::kMinus));
        legs.push_back(Leg{src, dst, block - block / 2});
      } else {
        p.routes.push_back(topo::route(pod, src, dst));
        legs.push_back(Leg{src, dst, block});
      }
    }
  }
  // Spans taken once every route is in place.
  for (size_t i = 0; i < legs.size(); ++i)
    p.transfers.push_back(Transfer{legs[i].src, legs[i].dst, legs[i].bytes, p.routes[i]});
  return p;
}

std::vector<uint64_t> link_loads(const topo::Pod& pod, const std::vector<Transfer>& transfers) {
  std::vector<uint64_t> loads(pod.links().size(), 0);
  for (const Transfer& t : transfers) {
    const std::vector<topo::LinkId> route =
        t.route.empty() ? topo::route(pod, t.src, t.dst)
                        : std::vector<topo::LinkId>(t.route.begin(), t.route.end());
    for (const topo::LinkId id : route)
      loads[id] += t.bytes;
  }
  return loads;
}

sim::Time bandwidth_bound(const topo::Pod& pod, const std::vector<Transfer>& transfers) {
  const std::vector<uint64_t> loads = link_loads(pod, transfers);
  sim::Time bound;
  for (topo::LinkId id = 0; id < loads.size(); ++id)
    bound = std::max(bound, sim::transfer_time(loads[id], pod.link(id).bandwidth));
  return bound;
}

sim::Time completion(const RunResult& r) {
  sim::Time last;
  for (const sim::Time t : r.times)
    last = std::max(last, t);
  return last;
}

double relative_error(sim::Time actual, sim::Time expected) {
  const double e = static_cast<double>(expected.count_ps());
  return std::abs(static_cast<double>(actual.count_ps()) - e) / e;
}

}  // namespace podsim::net::testing
