#include "chip/tensorcore/core_rates.h"

#include <stdexcept>
#include <string>

namespace podsim::chip::tensorcore {

config::ChipSpec one_core(const config::ChipSpec& chip) {
  config::ChipSpec c = chip;
  const uint32_t n = chip.tensor_core.cores;
  c.mxu_count = chip.mxu_count / n;
  c.peak_bf16_flops = chip.peak_bf16_flops / n;
  c.peak_int8_ops = chip.peak_int8_ops / n;
  c.peak_fp8_flops = chip.peak_fp8_flops / n;
  c.hbm_bandwidth = sim::Bandwidth::bytes_per_s(chip.hbm_bandwidth.bytes_per_s() / n);
  c.vmem_bytes = chip.vmem_bytes / n;
  c.tensor_core.cores = 1;
  return c;
}

CoreRates core_rates(const config::ChipSpec& chip, const Efficiency& efficiency) {
  const config::TensorCoreSpec& tc = chip.tensor_core;
  if (chip.vmem_bytes == 0)
    throw std::invalid_argument("--compute tensorcore needs the chip's vmem_bytes (0 in '" +
                                chip.name + "')");
  if (tc.cores == 0 || chip.mxu_count % tc.cores != 0)
    throw std::invalid_argument("the chip's " + std::to_string(chip.mxu_count) +
                                " matrix units do not split over " + std::to_string(tc.cores) +
                                " TensorCores");
  CoreRates r;
  r.cores = tc.cores;
  r.clock_hz = chip.mxu_clock_hz;
  r.vmem_bytes = chip.vmem_bytes / tc.cores;
  r.vector_ops_per_cycle =
      static_cast<double>(tc.vector_lanes) * tc.vector_sublanes * tc.vector_alus;
  r.transcendentals_per_cycle = tc.transcendentals_per_cycle;
  const double dma =
      static_cast<double>(tc.dma_bandwidth.bytes_per_s() > 0 ? tc.dma_bandwidth.bytes_per_s()
                                                             : chip.hbm_bandwidth.bytes_per_s());
  r.dma_bytes_per_cycle = dma * efficiency.hbm / tc.cores / r.clock_hz;
  r.dma_latency_cycles = tc.dma_latency.to_s() * r.clock_hz;
  r.dma_granule_bytes = tc.dma_granule_bytes;
  r.step_issue_cycles = tc.step_issue_cycles;
  r.mxu_rows = chip.mxu_rows;
  r.mxu_columns = chip.mxu_columns;
  return r;
}

}  // namespace podsim::chip::tensorcore
