// The figures of one TensorCore that --compute tensorcore plays kernels on
// (docs/tensorcore.md), derived once from a chip spec and its efficiency.
// A chip's `cores` TensorCores share its matrix units, VMEM and HBM (DMA)
// bandwidth evenly and run each operation's grid split between them, as
// megacore and the two-device chips do.
#pragma once

#include <cstdint>

#include "chip/compute_model.h"
#include "config/topology_spec.h"

namespace podsim::chip::tensorcore {

struct CoreRates {
  uint32_t cores = 1;
  double clock_hz = 0;
  uint64_t vmem_bytes = 0;  // one core's
  // fp32 ALU operations of the vector unit per cycle (lanes x sublanes x
  // ALUs); a multiply-add is one operation of 2 FLOPs.
  double vector_ops_per_cycle = 0;
  double transcendentals_per_cycle = 0;
  double dma_bytes_per_cycle = 0;  // one core's share, efficiency.hbm applied
  double dma_latency_cycles = 0;
  uint64_t dma_granule_bytes = 1;
  double step_issue_cycles = 0;
  uint32_t mxu_rows = 0;
  uint32_t mxu_columns = 0;
};

// Throws std::invalid_argument when the chip has no VMEM (vmem_bytes 0) or
// its matrix units do not split evenly over its cores.
CoreRates core_rates(const config::ChipSpec& chip, const Efficiency& efficiency);

// One core as a chip of its own: its share of the matrix units, peaks, HBM
// bandwidth and VMEM (for the systolic pass model it reuses).
config::ChipSpec one_core(const config::ChipSpec& chip);

// `bytes` rounded up to whole DMA granules.
inline double granules(double bytes, const CoreRates& r) {
  const auto g = static_cast<double>(r.dma_granule_bytes);
  return bytes <= 0 ? 0 : static_cast<double>(static_cast<uint64_t>((bytes + g - 1) / g)) * g;
}

}  // namespace podsim::chip::tensorcore
