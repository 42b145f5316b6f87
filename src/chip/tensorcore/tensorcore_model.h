// The TensorCore compute model (--compute tensorcore; docs/tensorcore.md):
// each operation as a tiled kernel (tiling.h) played through a pipeline of
// DMA, matrix units, vector unit and scalar issue on each of the chip's
// TensorCores (pipeline.h), the matrix units timed by the systolic model's
// pass cycles. What the roofline takes as given — operands in VMEM,
// transfers overlapped, vector work free beside the matrix units — it
// plays out, so VMEM size, DMA latency and granule, vector width and
// issue cost move results.
//
// Efficiency: hbm derates the DMA bandwidth, mxu the matrix units'
// streaming (a measured matmul's loss beyond what the model plays);
// op_overhead is added to every operation. The model counts padding, weight
// loads, fill and drain itself (so mxu_tile_overhead_cycles does not
// apply), and its DMA latency stands in for hbm_latency. Immutable after construction; time() is
// O(candidate tilings) and allocates a few small vectors.
#pragma once

#include <string_view>
#include <vector>

#include "chip/chip_rates.h"
#include "chip/compute_model.h"
#include "chip/tensorcore/tiling.h"

namespace podsim::chip::tensorcore {

class TensorCoreModel final : public ComputeModel {
 public:
  TensorCoreModel(const config::ChipSpec& chip, const Efficiency& efficiency);

  OpTiming time(const Op& op) const override;
  std::string_view name() const override { return "tensorcore"; }
  std::string_view attention_mapping(const Attention& a) const override {
    return to_string(tiler_.tile(a).mapping);
  }
  // The kernel's pipeline, one core's (tensorcore/timeline.h).
  std::vector<UnitSlice> unit_timeline(const Op& op) const override;
  // Fusion is played: the epilogue's vector work in the matmul's steps, its
  // bytes in the matmul's transfers (Tiler::fused).
  std::optional<OpTiming> fused_time(const Matmul& mm, const Epilogue& e) const override;
  std::vector<UnitSlice> fused_timeline(const Matmul& mm, const Epilogue& e) const override;

  // The tiling time() plays (one core's), for reports and tests.
  Tiling tiling(const Op& op) const { return tiler_.tile(op); }
  Tiling tiling(const Matmul& mm, const Epilogue& e) const { return tiler_.fused(mm, e); }
  const Tiler& tiler() const { return tiler_; }
  const CoreRates& rates() const { return tiler_.rates(); }

 private:
  OpTiming timing(const OpWork& w, const Tiling& t) const;

  ChipRates rates_;
  Tiler tiler_;
};

}  // namespace podsim::chip::tensorcore
