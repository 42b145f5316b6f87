#include "chip/tensorcore/pipeline.h"

#include <algorithm>

namespace podsim::chip::tensorcore {

PipelineCycles play(const KernelSteps& k, const CoreRates& r) {
  const auto steps = static_cast<double>(std::max<uint64_t>(k.steps, 1));
  const double b = r.dma_bytes_per_cycle;
  const double lat = r.dma_latency_cycles;
  const double in = k.in_bytes > 0 ? lat + k.in_bytes / b : 0;
  const double out = k.out_bytes > 0 ? lat + k.out_bytes / b : 0;
  const double both = k.in_bytes + k.out_bytes > 0 ? lat + (k.in_bytes + k.out_bytes) / b : 0;
  const double busy = std::max(k.mxu_cycles, k.vector_cycles) + r.step_issue_cycles;
  const double interval = std::max(busy, both);
  PipelineCycles c;
  c.total = in + (steps - 1) * interval + busy + k.fill_cycles + out;
  c.mxu = steps * k.mxu_cycles + k.fill_cycles;
  c.vector = steps * k.vector_cycles;
  c.issue = steps * r.step_issue_cycles;
  c.compute = steps * busy + k.fill_cycles;
  c.dma_wait = c.total - c.compute;
  c.dma_busy = steps * (k.in_bytes + k.out_bytes) / b;
  const bool matrix_longer = k.mxu_cycles >= k.vector_cycles;
  c.mxu_path = (matrix_longer ? steps * k.mxu_cycles : 0) + k.fill_cycles;
  c.vector_path = matrix_longer ? 0 : steps * k.vector_cycles;
  return c;
}

}  // namespace podsim::chip::tensorcore
