// `podsim topo`: what a pod is made of and what its network can carry.
//
// summarize() computes every figure from the built pod graph (nothing is typed
// in); render_topology() writes it as a table, JSON or one CSV row. JSON keys
// and CSV columns are documented in docs/outputs.md and carry their units.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report/format.h"
#include "topo/pod.h"

namespace podsim::report {

struct DimensionSummary {
  std::string name;
  uint32_t size = 0;
  bool wraparound = false;
  double link_bandwidth_gbps = 0;  // one direction of one link
  // Both directions of the axis at one chip (the book's W): 2 x link bandwidth
  // when the chip has links both ways along the dimension.
  double axis_bandwidth_gbps = 0;
  double hop_latency_ns = 0;
};

struct TopologySummary {
  std::string name;
  std::string description;
  std::string source;
  std::string chip;
  uint64_t chips = 0;
  uint32_t slices = 1;
  std::vector<DimensionSummary> dims;
  uint32_t twists = 0;
  uint64_t failed_links = 0;
  uint64_t dead_chips = 0;
  uint64_t degraded_links = 0;
  uint64_t stragglers = 0;
  uint64_t ici_links = 0;  // directed
  uint64_t dcn_links = 0;  // directed, chip to fabric and back
  // Over live chips, along the routes taken; nullopt: a slice is cut apart.
  std::optional<uint32_t> diameter_hops;
  // When diameter_hops is nullopt: the components of live chips of each cut
  // slice (topo::describe_components), "; " between slices.
  std::string disconnected;
  double chip_ici_bandwidth_gbps = 0;  // all ports, both directions (Google's per-chip figure)
  uint64_t bisection_links = 0;
  double bisection_bandwidth_gbps = 0;  // one direction of every link cut
  std::string bisection_cut;            // which cut is the worst, e.g. "x"
  double dcn_bandwidth_gbps_per_chip = 0;
  double peak_bf16_tflops_per_chip = 0;
  double peak_bf16_pflops_total = 0;
  double hbm_gib_per_chip = 0;
  double hbm_bandwidth_gbps_per_chip = 0;
};

TopologySummary summarize(const topo::Pod& pod);

void render_topology(const TopologySummary& s, Format format, std::ostream& out);

}  // namespace podsim::report
