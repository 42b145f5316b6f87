// Test helpers for collectives: pods with round figures built in code, and a
// one-call runner that plays one collective on a fresh simulation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coll/executor.h"
#include "coll/plan.h"
#include "config/topology_spec.h"
#include "config/workload_spec.h"
#include "net/network.h"
#include "specs.h"
#include "topo/mesh.h"
#include "topo/pod.h"

namespace podsim::coll::testing {

inline constexpr double kLinkGBps = 50.0;          // one way, as TPU v5e
inline constexpr double kW = 2 * kLinkGBps * 1e9;  // [SB]'s W: both ways of an axis, B/s
inline constexpr double kHopS = 1e-6;
inline constexpr double kOneWayW = kLinkGBps * 1e9;  // one direction of one link, B/s
inline constexpr net::Model kAllModels[] = {net::Model::kAnalytical, net::Model::kFlow,
                                            net::Model::kPacket};
inline constexpr double kDcnGBps = 25.0;
inline constexpr double kDcnLatencyS = 10e-6;
inline constexpr uint64_t kMiB = 1024 * 1024;
inline constexpr uint64_t kGiB = 1024 * kMiB;

struct Dim {
  uint32_t size;
  bool wrap;
};

// One slice (or `slices` joined by DCN); dims named x, y, z.
config::PodSpec pod_spec(const std::vector<Dim>& dims, uint32_t slices = 1);

// A mesh with one axis per torus dimension, named like it, plus "dcn" over
// the slices when there are several.
topo::DeviceMesh one_axis_per_dim(const topo::Pod& pod);

using podsim::testing::collective;

struct Outcome {
  double seconds = 0;
  uint64_t transfers_started = 0;
  uint64_t transfers_delivered = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  bool done = false;
  std::vector<uint64_t> link_bytes;          // counted by the run
  std::vector<uint64_t> network_link_bytes;  // counted by the network
  std::string schedule;                      // Plan::schedule of the plan lower() chose
};

Outcome run(const topo::Pod& pod, const topo::DeviceMesh& mesh, const config::CollectiveSpec& c,
            net::Model model = net::Model::kFlow);

}  // namespace podsim::coll::testing
