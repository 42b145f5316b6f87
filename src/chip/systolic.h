// The systolic compute model (--compute systolic): cycles of weight-
// stationary systolic arrays, for micro-architecture questions.
//
// The chip has `count` arrays of R rows x C columns at `clock`. A pass
// (mxu_passes.h) of shape (batch, m, k, n) is cut into weight tiles of R x C
// (k along the rows, n along the columns): T = batch x ceil(k/R) x ceil(n/C)
// tiles. When T < count, the streamed rows are also split s = min(count / T,
// m) ways, each part loading the same weights; otherwise s = 1. The T x s
// work units go round-robin over the arrays: rounds = ceil(T x s / count).
// Per unit:
//  - weight load: L = ceil(ChipRates::tile_load_cycles) cycles, the tile's
//    R x C elements in the rate's operand dtype (2 bytes for bf16, 1 for
//    int8 and fp8) at the chip's weight-load bytes per cycle (by default one
//    bf16 row per cycle: L = R for bf16, R / 2 for int8); the arrays
//    double-buffer weights, so a tile loads while the previous one streams;
//  - stream: S = ceil(rows / p) cycles, rows = ceil(ceil(m / s) x
//    useful_fraction) (causal attention streams only the rows that see a
//    tile, on average), p = round(peak(rate) / array bf16 rate) rows per
//    cycle (2 for int8 on v5e; 1 for bf16);
//  - fill and drain: an activation row enters row i of the array at cycle
//    t + i and meets column j at t + i + j; the last partial sum leaves the
//    bottom of the last column R + C - 2 cycles after the last row enters.
// So one round follows another every I = max(S, L) cycles, and with an
// infinitely fast HBM a pass takes
//   compute_cycles = L + (rounds - 1) x I + S + (R + C - 2).
// HBM: the pass's bytes arrive at B = HBM bandwidth x efficiency.hbm / clock
// bytes per cycle, spread evenly over the rounds: F = ceil(bytes / rounds /
// B) cycles per round. A round's operands must be in VMEM before its weights
// load, and the next round's are fetched while it computes, so
//   cycles = F + L + (rounds - 1) x max(I, F) + S + (R + C - 2).
// stall_cycles = cycles - compute_cycles: the arrays waiting for HBM;
// hbm_busy_cycles = ceil(bytes / B): the rest of `cycles`, HBM waits for the
// arrays. utilisation = useful MACs / (count x R x C x p x cycles).
//
// Worked example (tests/chip/systolic_test.cc): a 128x128x128 bf16 product
// on one 128x128 array is one tile: 128 (load) + 128 (stream) + 254 (fill and
// drain) = 510 compute cycles, utilisation 128/510.
//
// The op's time is max(cycles / clock, vector time) + efficiency.op_overhead,
// with efficiency.hbm_latency before the first fetch of an op that moves HBM
// bytes; vector-only ops are timed as the roofline times them (cycles = 0).
// The model counts padding, weight loads, fill and drain itself, so the
// roofline's stand-ins for them, efficiency.mxu and
// efficiency.mxu_tile_overhead_cycles, do not apply; efficiency.hbm and
// efficiency.vector do. O(passes) per op,
// allocation-free.
#pragma once

#include <cstdint>
#include <string_view>

#include "chip/chip_rates.h"
#include "chip/compute_model.h"
#include "chip/mxu_passes.h"

namespace podsim::chip {

struct SystolicPassCycles {
  uint64_t tiles = 0;           // T
  uint64_t split = 1;           // s
  uint64_t rounds = 0;          // ceil(T x s / count)
  uint64_t rows_per_cycle = 1;  // p
  uint64_t stream_cycles = 0;   // S
  uint64_t fetch_cycles = 0;    // F, per round
  uint64_t compute_cycles = 0;
  uint64_t cycles = 0;
  uint64_t hbm_busy_cycles = 0;
  double useful_macs = 0;
  double capacity_macs = 0;  // count x R x C x p x cycles
};

// The sum over an op's passes (run one after the other).
struct SystolicCycles {
  uint64_t compute_cycles = 0;
  uint64_t cycles = 0;
  uint64_t stall_cycles = 0;     // cycles - compute_cycles
  uint64_t hbm_busy_cycles = 0;  // <= cycles
  double useful_macs = 0;
  double utilisation = 0;  // useful MACs / capacity over `cycles`; 0 without MXU work

  uint64_t hbm_idle_cycles() const { return cycles - hbm_busy_cycles; }
};

class SystolicModel final : public ComputeModel {
 public:
  SystolicModel(const config::ChipSpec& chip, const Efficiency& efficiency);

  OpTiming time(const Op& op) const override;
  std::string_view name() const override { return "systolic"; }

  SystolicPassCycles pass_cycles(const MxuPass& pass) const;
  SystolicCycles cycles(const Op& op) const;

 private:
  ChipRates rates_;
  double hbm_bytes_per_cycle_ = 0;
  double array_bf16_macs_per_s_ = 0;  // count x R x C x clock
};

}  // namespace podsim::chip
