// The roofline compute model (--compute roofline, the default).
//
//   time = max(compute, memory) + efficiency.op_overhead
//   memory  = efficiency.hbm_latency (when the op moves any bytes)
//             + HBM bytes / (HBM bandwidth x efficiency.hbm), rounded up
//   compute = max(MXU time, vector time)   (the two units overlap)
//   vector time = vector FLOPs / (bf16 peak / kVectorPeakDivisor x
//                 efficiency.vector)
//   MXU time = sum over the op's passes (mxu_passes.h) of
//              2 x useful MACs / (peak(rate) x efficiency.mxu x padding)
//              + rounds x efficiency.mxu_tile_overhead_cycles / clock
//   rounds = ceil(batch x ceil(k / R) x ceil(n / C) / matrix units), the
//            rounds of weight tiles over the arrays
//
// Padding is what a weight-stationary array (rows R x columns C) wastes on a
// pass of shape (m, k, n), and matches the systolic model's steady state:
//   padding = k / ceil_to(k, R) x n / ceil_to(n, C) x m / max(m, L x s)
// k and n are padded to whole tiles; each weight tile takes L cycles to
// load (ChipRates::tile_load_cycles: R x C x operand bytes / the chip's
// weight-load bytes per cycle, R for bf16 at the default of one bf16 row
// per cycle), hidden behind the previous tile's stream only if that stream
// lasts L cycles; the streamed rows run s = peak(rate) / bf16 peak at a time
// (2 for int8 on v5e), so fewer than L x s rows leave the array idle: a
// bf16 decode batch of 8 on a 128-wide array uses 8/128 of it. The roofline
// ignores what only the systolic model counts: the first weight load, fill
// and drain, and the rounding of tiles over the arrays.
//
// O(1) per op, allocation-free: one std::visit and a few divisions.
#pragma once

#include <string_view>

#include "chip/chip_rates.h"
#include "chip/compute_model.h"
#include "chip/mxu_passes.h"

namespace podsim::chip {

class RooflineModel final : public ComputeModel {
 public:
  RooflineModel(const config::ChipSpec& chip, const Efficiency& efficiency);

  OpTiming time(const Op& op) const override;
  std::string_view name() const override { return "roofline"; }

  // The padding factor above, in (0, 1].
  double padding(const MxuPass& pass) const;
  // efficiency.mxu_tile_overhead_cycles x the pass's rounds of weight tiles
  // (ceil(batch x ceil(k / R) x ceil(n / C) / matrix units)), in seconds.
  double tile_overhead_seconds(const MxuPass& pass) const;

 private:
  ChipRates rates_;
};

}  // namespace podsim::chip
