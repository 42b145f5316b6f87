#include "chip/tensorcore/tensorcore_model.h"

#include <algorithm>

#include "chip/tensorcore/timeline.h"

namespace podsim::chip::tensorcore {

TensorCoreModel::TensorCoreModel(const config::ChipSpec& chip, const Efficiency& efficiency)
    : rates_(chip, efficiency), tiler_(chip, efficiency) {}

OpTiming TensorCoreModel::time(const Op& op) const {
  return timing(work(op), tiler_.tile(op));
}

std::optional<OpTiming> TensorCoreModel::fused_time(const Matmul& mm, const Epilogue& e) const {
  OpWork w = work(Op{mm});
  w.vector_flops += e.vector_flops;
  w.hbm_read_bytes += e.read_bytes;
  w.hbm_write_bytes = e.write_bytes;
  return timing(w, tiler_.fused(mm, e));
}

OpTiming TensorCoreModel::timing(const OpWork& w, const Tiling& t) const {
  const double clock = tiler_.rates().clock_hz;
  const sim::Time busy = time_from_seconds(t.cycles.total / clock);
  const sim::Time compute = time_from_seconds(t.cycles.compute / clock);
  const sim::Time memory = time_from_seconds(t.cycles.dma_busy / clock);
  const UnitParts parts{time_from_seconds(t.cycles.mxu_path / clock),
                        time_from_seconds(t.cycles.vector_path / clock),
                        time_from_seconds(t.cycles.issue / clock)};
  OpTiming out =
      assemble_timing(w, rates_, compute, memory, busy, rates_.efficiency().op_overhead, parts);
  out.cycles = static_cast<uint64_t>(t.cycles.total);
  // The kernel's own traffic, every core's: what HBM and VMEM moved.
  const double traffic =
      std::max(t.dma_bytes * tiler_.rates().cores, static_cast<double>(w.hbm_bytes()));
  out.work.hbm_bytes = traffic;
  out.work.vmem_bytes = 2 * traffic;
  return out;
}

std::vector<UnitSlice> TensorCoreModel::unit_timeline(const Op& op) const {
  return kernel_timeline(tiler_.tile(op).steps, tiler_.rates(), time(op));
}

std::vector<UnitSlice> TensorCoreModel::fused_timeline(const Matmul& mm, const Epilogue& e) const {
  return kernel_timeline(tiler_.fused(mm, e).steps, tiler_.rates(), *fused_time(mm, e));
}

}  // namespace podsim::chip::tensorcore
