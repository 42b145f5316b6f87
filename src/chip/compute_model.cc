#include "chip/compute_model.h"

#include <stdexcept>

#include "chip/roofline.h"
#include "chip/systolic.h"
#include "chip/table_model.h"
#include "chip/tensorcore/tensorcore_model.h"

namespace podsim::chip {

Efficiency efficiency_of(const config::CalibrationSpec& calibration) {
  Efficiency e;
  e.mxu = calibration.mxu_efficiency;
  e.hbm = calibration.hbm_efficiency;
  e.op_overhead = calibration.op_overhead;
  e.hbm_latency = calibration.hbm_latency;
  e.mxu_tile_overhead_cycles = calibration.mxu_tile_overhead_cycles;
  return e;
}

std::unique_ptr<ComputeModel> make_compute_model(ComputeModelKind kind,
                                                 const config::ChipSpec& chip,
                                                 const Efficiency& efficiency,
                                                 const config::OpTableSpec* table) {
  switch (kind) {
    case ComputeModelKind::kRoofline:
      return std::make_unique<RooflineModel>(chip, efficiency);
    case ComputeModelKind::kSystolic:
      return std::make_unique<SystolicModel>(chip, efficiency);
    case ComputeModelKind::kTensorCore:
      return std::make_unique<tensorcore::TensorCoreModel>(chip, efficiency);
    case ComputeModelKind::kTable:
      if (table == nullptr)
        throw std::invalid_argument("the table compute model needs an operation table");
      return std::make_unique<TableModel>(chip, efficiency, *table);
  }
  throw std::invalid_argument("unknown compute model");
}

std::string_view to_string(ComputeModelKind kind) {
  switch (kind) {
    case ComputeModelKind::kRoofline:
      return "roofline";
    case ComputeModelKind::kSystolic:
      return "systolic";
    case ComputeModelKind::kTable:
      return "table";
    case ComputeModelKind::kTensorCore:
      return "tensorcore";
  }
  return "?";
}

std::optional<ComputeModelKind> parse_compute_model(std::string_view name) {
  for (ComputeModelKind k : {ComputeModelKind::kRoofline, ComputeModelKind::kSystolic,
                             ComputeModelKind::kTable, ComputeModelKind::kTensorCore}) {
    if (name == to_string(k))
      return k;
  }
  return std::nullopt;
}

std::string_view to_string(OpTiming::Bound bound) {
  switch (bound) {
    case OpTiming::Bound::kCompute:
      return "compute";
    case OpTiming::Bound::kMemory:
      return "memory";
    case OpTiming::Bound::kOverhead:
      return "overhead";
  }
  return "?";
}

}  // namespace podsim::chip
