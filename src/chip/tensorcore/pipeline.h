// A tiled kernel as --compute tensorcore plays it on one core: `steps`
// identical grid steps, software-pipelined with double-buffered VMEM as
// Pallas and XLA's emitters pipeline them (the JAX Pallas TPU pipelining
// guide): while step i computes, the DMA engines fetch step i + 1's operands
// and write back step i - 1's results.
//
//   in   = latency + in_bytes / B      (one step's fetch)
//   out  = latency + out_bytes / B     (one step's write-back)
//   busy = max(mxu, vector) + issue    (one step's compute)
//   steady interval = max(busy, latency + (in_bytes + out_bytes) / B)
//   total = in + (steps - 1) x interval + busy + fill + out
// B is the core's DMA bandwidth (bytes per cycle), in and out bytes whole
// DMA granules; fill is the matrix units' fill, drain and first weight load,
// paid once per kernel (later tiles load while earlier ones stream).
#pragma once

#include <cstdint>

#include "chip/tensorcore/core_rates.h"

namespace podsim::chip::tensorcore {

struct KernelSteps {
  uint64_t steps = 1;
  double in_bytes = 0;       // per step, HBM -> VMEM (whole granules)
  double out_bytes = 0;      // per step, VMEM -> HBM (whole granules)
  double mxu_cycles = 0;     // per step, the matrix units streaming
  double vector_cycles = 0;  // per step, the vector unit
  double fill_cycles = 0;    // once per kernel
};

// Cycles of one core; the parts add up: total = compute + dma_wait, where
// compute is the steps' busy time plus fill and dma_wait the time the core
// waits on DMA (the first fetch, the last write-back, and steps whose
// transfers outlast their compute). Along the critical path, compute =
// mxu_path + vector_path + issue: a step's busy time is charged to the
// longer of its two units (the matrix units on a tie), the fill to the
// matrix units.
struct PipelineCycles {
  double total = 0;
  double mxu = 0;     // matrix units, all steps and fill
  double vector = 0;  // vector unit, all steps
  double issue = 0;   // scalar core issuing steps
  double compute = 0;
  double dma_wait = 0;
  double dma_busy = 0;     // DMA engines transferring, all steps
  double mxu_path = 0;     // the matrix units' share of compute
  double vector_path = 0;  // the vector unit's share of compute
};

PipelineCycles play(const KernelSteps& k, const CoreRates& r);

}  // namespace podsim::chip::tensorcore
