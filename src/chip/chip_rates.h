// The numbers every compute model derives once from a chip spec and its
// efficiency factors, and the helpers that turn them into an OpTiming.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "chip/compute_model.h"
#include "chip/ops.h"
#include "config/topology_spec.h"
#include "sim/time.h"

namespace podsim::chip {

// The chip spec has no vector-unit figure. podsim takes the vector unit's
// rate as the bf16 MXU peak / 16: an (8 sublane x 128 lane) unit with four
// ALUs per lane issuing fused multiply-adds at the MXU clock, 8 x 128 x 4 x 2
// x 1.5 GHz = 1.23e13 FLOP/s on v5e = 1.97e14 / 16. Not published; this
// project's estimate. It matters little: an op is vector-bound only above
// (peak / 16) / HBM bandwidth = 1.23e13 / 8.19e11 = 15 FLOPs per HBM byte on
// v5e, which norms and activations (a few FLOPs per element) do not reach.
inline constexpr double kVectorPeakDivisor = 16;

class ChipRates {
 public:
  // Throws std::invalid_argument on a bad efficiency or overhead, or a chip
  // without a bf16 peak, HBM bandwidth or matrix units, or with a negative
  // weight-load rate.
  ChipRates(const config::ChipSpec& chip, const Efficiency& efficiency);

  // The rate an op of `rate` actually runs at: kBf16 when the chip has no
  // peak for `rate`.
  Rate effective(Rate rate) const {
    return peak_[static_cast<size_t>(rate)] > 0 ? rate : Rate::kBf16;
  }
  // Published peak FLOP/s (OP/s for int8) of effective(rate); no efficiency.
  double peak(Rate rate) const { return peak_[static_cast<size_t>(effective(rate))]; }
  // How many times the bf16 rate `rate` runs (>= 1): int8 on v5e is 2.
  double speedup(Rate rate) const { return peak(rate) / peak_[0]; }

  double vector_flops_per_s() const { return vector_flops_per_s_; }  // efficiency applied
  sim::Bandwidth hbm() const { return hbm_; }                        // efficiency applied
  const Efficiency& efficiency() const { return efficiency_; }

  // Cycles one matrix unit takes to load a rows x columns tile of stationary
  // operand at `rate` (bf16 2 bytes per element, int8 and fp8 1; int4
  // weights are widened to int8 before they enter): the tile's bytes over
  // config::weight_load_bytes_per_cycle(chip). Not rounded.
  double tile_load_cycles(Rate rate) const {
    const double bytes = effective(rate) == Rate::kBf16 ? 2.0 : 1.0;
    return static_cast<double>(mxu_rows_) * mxu_columns_ * bytes / weight_load_bytes_per_cycle_;
  }

  // HBM time of `bytes`: the stream's latency (none for no bytes) plus the
  // bytes at the derated bandwidth.
  sim::Time hbm_time(uint64_t bytes) const {
    return bytes == 0 ? sim::Time::zero()
                      : efficiency_.hbm_latency + sim::transfer_time(bytes, hbm_);
  }

  uint32_t mxu_count() const { return mxu_count_; }
  uint32_t mxu_rows() const { return mxu_rows_; }
  uint32_t mxu_columns() const { return mxu_columns_; }
  double clock_hz() const { return clock_hz_; }

 private:
  std::array<double, 3> peak_{};  // indexed by Rate
  double vector_flops_per_s_ = 0;
  sim::Bandwidth hbm_;
  Efficiency efficiency_;
  uint32_t mxu_count_ = 0;
  uint32_t mxu_rows_ = 0;
  uint32_t mxu_columns_ = 0;
  double clock_hz_ = 0;
  double weight_load_bytes_per_cycle_ = 0;
};

// ceil(seconds) in picoseconds. Throws sim::TimeOverflow past ~106 days.
sim::Time time_from_seconds(double seconds);

// The busy time a model's units account for, on the critical path: what
// the matrix units, the vector unit and the scalar core spent; the rest of
// the busy time is DMA wait (UnitTimes).
struct UnitParts {
  sim::Time mxu;
  sim::Time vector;
  sim::Time issue;
};

// A roofline-style op's parts: its compute time on the matrix units when
// their time is at least the vector unit's, else on the vector unit.
UnitParts on_one_unit(sim::Time compute, double mxu_seconds, double vector_seconds);

// Fills an OpTiming from the parts a model computed: time = busy + overhead,
// the bound (kOverhead when overhead > busy, else the longer of compute and
// memory), FLOPs, bytes, achieved rate, MXU utilisation (work.mxu_flops
// against rates.peak(work.mxu_rate) over time) and the unit times: `parts`
// clamped in order (matrix units, vector unit, issue) to the busy time, the
// rest of it DMA wait, and the overhead.
OpTiming assemble_timing(const OpWork& work, const ChipRates& rates, sim::Time compute,
                         sim::Time memory, sim::Time busy, sim::Time overhead,
                         const UnitParts& parts);

// `units` scaled to a total of `total` picoseconds, the parts in the same
// proportions (floored; the picoseconds left over go to the largest part,
// the first of equals). All of it DMA wait when `units` is zero.
UnitTimes scale_units(const UnitTimes& units, sim::Time total);

}  // namespace podsim::chip
