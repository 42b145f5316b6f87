// Every rule a topology must satisfy, checked once, in one pass that reports
// all violations (docs/inputs.md lists them).
//
// Internal to src/config: it reads the generated podsim::Topology message.
// After validate_topology() returns no issues, to_pod_spec() cannot fail.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/internal/issue_list.h"

namespace podsim {
class Topology;
class Dimension;
}  // namespace podsim

namespace podsim::config::internal {

// The largest pod the simulator accepts: 2^20 chips (slices x torus size).
inline constexpr uint64_t kMaxChips = 1'048'576;
// Upper bounds that catch typos long before sim::Bandwidth (uint64 B/s) or
// sim::Time (int64 ps, about 106 days) would overflow.
inline constexpr double kMaxBandwidthGbps = 1e9;  // 1 EB/s
inline constexpr double kMaxLatencyNs = 1e12;     // 1000 s
inline constexpr double kMaxClockGhz = 1e3;
// Lower bounds on rates: below them a step of any size could outlast
// sim::Time, and no real part is that slow (1 MB/s, 1 MHz).
inline constexpr double kMinBandwidthGbps = 1e-3;
inline constexpr double kMinClockGhz = 1e-3;
inline constexpr double kMaxWeightLoadBytesPerCycle = 1e9;
inline constexpr double kMaxMacsPerCycle = 64;  // int4 on a bf16 cell would be 4
// TensorCore fields (topology.proto TensorCore): far above any chip, so a
// value beyond is a typo rather than a design point.
inline constexpr uint32_t kMaxTensorCores = 64;
inline constexpr uint32_t kMaxVectorWidth = 4096;
inline constexpr uint32_t kMaxDmaGranuleBytes = 1u << 24;
inline constexpr double kMaxStepIssueCycles = 1e9;

std::vector<FieldIssue> validate_topology(const podsim::Topology& topology);

// The dimension's name, or its default by position: x, y, z, w, then d4, d5, ...
std::string dimension_name(const podsim::Dimension& dim, int index);

}  // namespace podsim::config::internal
