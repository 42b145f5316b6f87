#include "chip/tensorcore/tensorcore_model.h"

#include "chip/tensorcore/timeline.h"

namespace podsim::chip::tensorcore {

TensorCoreModel::TensorCoreModel(const config::ChipSpec& chip, const Efficiency& efficiency)
    : rates_(chip, efficiency), tiler_(chip, efficiency) {}

OpTiming TensorCoreModel::time(const Op& op) const {
  const OpWork w = work(op);
  const Tiling t = tiler_.tile(op);
  const double clock = tiler_.rates().clock_hz;
  const sim::Time busy = time_from_seconds(t.cycles.total / clock);
  const sim::Time compute = time_from_seconds(t.cycles.compute / clock);
  const sim::Time memory = time_from_seconds(t.cycles.dma_busy / clock);
  const UnitParts parts{time_from_seconds(t.cycles.mxu_path / clock),
                        time_from_seconds(t.cycles.vector_path / clock),
                        time_from_seconds(t.cycles.issue / clock)};
  OpTiming timing =
      assemble_timing(w, rates_, compute, memory, busy, rates_.efficiency().op_overhead, parts);
  timing.cycles = static_cast<uint64_t>(t.cycles.total);
  return timing;
}

std::vector<UnitSlice> TensorCoreModel::unit_timeline(const Op& op) const {
  return kernel_timeline(tiler_.tile(op).steps, tiler_.rates(), time(op));
}

}  // namespace podsim::chip::tensorcore
