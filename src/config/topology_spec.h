// Validated, typed description of a pod: what src/config produces from a
// topology file and everything below it consumes. These are plain values; the
// loader has already checked every rule listed in docs/inputs.md, so consumers
// do not re-check input (they may assert invariants).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/power_spec.h"
#include "sim/time.h"

namespace podsim::config {

// A chip's TensorCores for --compute tensorcore (topology.proto TensorCore),
// every default filled in by the loader (docs/tensorcore.md).
struct TensorCoreSpec {
  uint32_t cores = 1;
  uint32_t vector_lanes = 128;
  uint32_t vector_sublanes = 8;
  uint32_t vector_alus = 4;
  double transcendentals_per_cycle = 256;
  sim::Bandwidth dma_bandwidth;  // the chip's; zero: the HBM bandwidth
  sim::Time dma_latency = sim::Time::from_ns_rounded(258);
  uint32_t dma_granule_bytes = 4096;
  double step_issue_cycles = 150;

  friend bool operator==(const TensorCoreSpec&, const TensorCoreSpec&) = default;
};

struct ChipSpec {
  std::string name;
  // Peak operations per second per dtype; 0 when the chip lacks the dtype.
  // From a topology file these are the matrix units' own rates (the loader
  // derives a peak the file leaves unset and checks a given one against
  // them; see MatrixUnits in topology.proto).
  double peak_bf16_flops = 0;
  double peak_int8_ops = 0;
  double peak_fp8_flops = 0;
  uint64_t hbm_bytes = 0;
  sim::Bandwidth hbm_bandwidth;
  uint32_t mxu_count = 0;
  uint32_t mxu_rows = 0;
  uint32_t mxu_columns = 0;
  double mxu_clock_hz = 0;
  // Bytes of weights one matrix unit loads per cycle; 0 means podsim's
  // default (see weight_load_bytes_per_cycle() below).
  double mxu_weight_load_bytes_per_cycle = 0;
  uint64_t vmem_bytes = 0;  // the chip's: every TensorCore's together
  uint32_t ici_ports = 0;
  TensorCoreSpec tensor_core;
  PowerSpec power;  // modelled == false without a power model

  friend bool operator==(const ChipSpec&, const ChipSpec&) = default;
};

// Multiply-accumulates per second of all the chip's matrix units at one MAC
// per cell per cycle (the bf16 rate): count x rows x columns x clock.
inline double matrix_unit_macs_per_s(const ChipSpec& c) {
  return static_cast<double>(c.mxu_count) * c.mxu_rows * c.mxu_columns * c.mxu_clock_hz;
}

// The bytes of stationary operand one matrix unit takes in per cycle: the
// chip's figure, or, when it has none, podsim's estimate of one row of bf16
// per cycle (columns x 2 bytes; not published for any TPU).
inline double weight_load_bytes_per_cycle(const ChipSpec& c) {
  return c.mxu_weight_load_bytes_per_cycle > 0 ? c.mxu_weight_load_bytes_per_cycle
                                               : 2.0 * c.mxu_columns;
}

struct DimensionSpec {
  std::string name;
  uint32_t size = 1;
  bool wraparound = false;
  sim::Bandwidth link_bandwidth;  // one direction of one link
  sim::Time hop_latency;

  friend bool operator==(const DimensionSpec&, const DimensionSpec&) = default;
};

// The wrap link of `dim` also shifts `offset` along `shift_dim` (see topology.proto).
struct TwistSpec {
  uint32_t dim = 0;
  uint32_t shift_dim = 0;
  uint32_t offset = 0;

  friend bool operator==(const TwistSpec&, const TwistSpec&) = default;
};

struct TorusSpec {
  std::vector<DimensionSpec> dims;
  std::vector<TwistSpec> twists;

  friend bool operator==(const TorusSpec&, const TorusSpec&) = default;

  uint64_t chip_count() const {
    uint64_t n = 1;
    for (const auto& d : dims)
      n *= d.size;
    return n;
  }
};

struct FailedLinkSpec {
  uint32_t slice = 0;
  std::vector<uint32_t> coords;
  uint32_t dim = 0;
  int32_t direction = +1;  // +1 or -1

  friend bool operator==(const FailedLinkSpec&, const FailedLinkSpec&) = default;
};

// Faulty hardware beside failed links (topology.proto: DeadChip,
// DegradedLink, Straggler); the loader checks each names a chip or link.
struct DeadChipSpec {
  uint32_t slice = 0;
  std::vector<uint32_t> coords;

  friend bool operator==(const DeadChipSpec&, const DeadChipSpec&) = default;
};

struct DegradedLinkSpec {
  uint32_t slice = 0;
  std::vector<uint32_t> coords;
  uint32_t dim = 0;
  int32_t direction = +1;
  double bandwidth_factor = 1.0;  // of the dimension's link bandwidth, (0, 1]
  sim::Time extra_latency;        // added to the dimension's hop latency

  friend bool operator==(const DegradedLinkSpec&, const DegradedLinkSpec&) = default;
};

struct StragglerSpec {
  uint32_t slice = 0;
  std::vector<uint32_t> coords;
  double compute_factor = 1.0;  // of the chip's clock and compute peaks, (0, 1]
  double hbm_factor = 1.0;      // of the chip's HBM bandwidth, (0, 1]

  friend bool operator==(const StragglerSpec&, const StragglerSpec&) = default;
};

struct DcnSpec {
  sim::Bandwidth bandwidth_per_chip;  // each way
  sim::Time latency;

  friend bool operator==(const DcnSpec&, const DcnSpec&) = default;
};

// Losses against the published hardware; ideal by default. From the
// topology file's `calibration`, or from a calibration profile
// (config/calibration_loader.h), which replaces it whole. Each knob is a
// named mechanism (docs/calibration.md gives its physics and the
// microbenchmark that identifies it).
struct CalibrationSpec {
  double ici_link_efficiency = 1.0;
  double dcn_efficiency = 1.0;
  sim::Time collective_overhead;
  double mxu_efficiency = 1.0;
  double hbm_efficiency = 1.0;
  sim::Time op_overhead;
  sim::Time ring_step_overhead;         // per step of a collective, at its receiver
  sim::Time hbm_latency;                // per operation's HBM stream
  double mxu_tile_overhead_cycles = 0;  // per round of weight tiles
  std::string source;
  // Set when a calibration profile supplied the knobs above; empty otherwise.
  std::string profile;         // its name
  std::string profile_file;    // as the user named it
  std::string profile_sha256;  // hex SHA-256 of the profile file's bytes
  // True when the profile replaced a calibration the topology file set.
  bool replaced_topology_calibration = false;

  friend bool operator==(const CalibrationSpec&, const CalibrationSpec&) = default;
};

struct PodSpec {
  std::string name;
  std::string description;
  std::string source_file;             // where it was loaded from ("<embedded>" for the default)
  std::vector<std::string> overrides;  // "path=value" of each --set applied to this input, in order
  std::string source_sha256;  // hex SHA-256 of the input's bytes (the file, or the embedded text)
  ChipSpec chip;
  TorusSpec torus;
  uint32_t slices = 1;
  std::optional<DcnSpec> dcn;  // present iff slices > 1
  std::vector<FailedLinkSpec> failed_links;
  std::vector<DeadChipSpec> dead_chips;
  std::vector<DegradedLinkSpec> degraded_links;
  std::vector<StragglerSpec> stragglers;
  CalibrationSpec calibration;

  friend bool operator==(const PodSpec&, const PodSpec&) = default;

  // Any fault at all: failed links, dead chips, degraded links, stragglers.
  bool has_faults() const {
    return !failed_links.empty() || !dead_chips.empty() || !degraded_links.empty() ||
           !stragglers.empty();
  }
  // The same pod with every fault repaired (--vs-healthy's baseline).
  PodSpec without_faults() const {
    PodSpec healthy = *this;
    healthy.failed_links.clear();
    healthy.dead_chips.clear();
    healthy.degraded_links.clear();
    healthy.stragglers.clear();
    return healthy;
  }

  uint64_t chip_count() const { return torus.chip_count() * slices; }
};

}  // namespace podsim::config
