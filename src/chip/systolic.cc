#include "chip/systolic.h"

#include <algorithm>
#include <cmath>

namespace podsim::chip {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

SystolicModel::SystolicModel(const config::ChipSpec& chip, const Efficiency& efficiency)
    : rates_(chip, efficiency) {
  hbm_bytes_per_cycle_ = static_cast<double>(rates_.hbm().bytes_per_s()) / rates_.clock_hz();
  array_bf16_macs_per_s_ = static_cast<double>(rates_.mxu_count()) * rates_.mxu_rows() *
                           rates_.mxu_columns() * rates_.clock_hz();
}

SystolicPassCycles SystolicModel::pass_cycles(const MxuPass& pass) const {
  const uint64_t rows = rates_.mxu_rows();
  const uint64_t cols = rates_.mxu_columns();
  const uint64_t arrays = rates_.mxu_count();
  const Rate rate = rates_.effective(pass.rate);

  SystolicPassCycles c;
  c.tiles = pass.batch * ceil_div(pass.k, rows) * ceil_div(pass.n, cols);
  c.split = c.tiles < arrays ? std::min<uint64_t>(arrays / c.tiles, pass.m) : 1;
  c.rounds = ceil_div(c.tiles * c.split, arrays);
  if (rate != Rate::kBf16) {
    // MACs per PE per cycle of the array at this rate; a topology file's
    // peaks agree with the array's own rates within 2% (the loader checks).
    const double ratio = rates_.peak(rate) / (2.0 * array_bf16_macs_per_s_);
    c.rows_per_cycle = static_cast<uint64_t>(std::max(1.0, std::round(ratio)));
  }
  const double unit_rows = static_cast<double>(ceil_div(pass.m, c.split));
  const auto streamed =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(unit_rows * pass.useful_fraction)));
  c.stream_cycles = ceil_div(streamed, c.rows_per_cycle);
  // Loading the next tile overlaps streaming the current one.
  const auto load =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(rates_.tile_load_cycles(rate))));
  const uint64_t interval = std::max(c.stream_cycles, load);
  const uint64_t fill_drain = rows + cols - 2;
  if (pass.hbm_bytes > 0) {
    const double bytes = static_cast<double>(pass.hbm_bytes);
    c.fetch_cycles = static_cast<uint64_t>(
        std::ceil(bytes / static_cast<double>(c.rounds) / hbm_bytes_per_cycle_));
    c.hbm_busy_cycles = static_cast<uint64_t>(std::ceil(bytes / hbm_bytes_per_cycle_));
  }
  c.compute_cycles = load + (c.rounds - 1) * interval + c.stream_cycles + fill_drain;
  c.cycles = c.fetch_cycles + load + (c.rounds - 1) * std::max(interval, c.fetch_cycles) +
             c.stream_cycles + fill_drain;
  c.useful_macs = pass.useful_macs();
  c.capacity_macs =
      static_cast<double>(arrays * rows * cols * c.rows_per_cycle) * static_cast<double>(c.cycles);
  return c;
}

SystolicCycles SystolicModel::cycles(const Op& op) const {
  SystolicCycles total;
  double capacity = 0;
  for (const MxuPass& pass : mxu_passes(op)) {
    const SystolicPassCycles c = pass_cycles(pass);
    total.compute_cycles += c.compute_cycles;
    total.cycles += c.cycles;
    total.hbm_busy_cycles += c.hbm_busy_cycles;
    total.useful_macs += c.useful_macs;
    capacity += c.capacity_macs;
  }
  total.stall_cycles = total.cycles - total.compute_cycles;
  total.hbm_busy_cycles = std::min(total.hbm_busy_cycles, total.cycles);
  if (capacity > 0)
    total.utilisation = total.useful_macs / capacity;
  return total;
}

OpTiming SystolicModel::time(const Op& op) const {
  const OpWork w = work(op);
  const SystolicCycles c = cycles(op);
  const double clock = rates_.clock_hz();
  const double vector_s = w.vector_flops / rates_.vector_flops_per_s();
  const double mxu_s = static_cast<double>(c.compute_cycles) / clock;
  const sim::Time compute = time_from_seconds(std::max(mxu_s, vector_s));
  const sim::Time memory = rates_.hbm_time(w.hbm_bytes());
  // With MXU work the cycle count already holds the HBM streaming; the
  // stream's latency delays its first fetch.
  const sim::Time first_fetch = w.hbm_bytes() > 0 ? rates_.efficiency().hbm_latency : sim::Time();
  const sim::Time busy = c.cycles > 0
                             ? first_fetch + time_from_seconds(std::max(
                                                 static_cast<double>(c.cycles) / clock, vector_s))
                             : std::max(compute, memory);
  // The cycles beyond the arrays' own (HBM stalls) and the first fetch are
  // DMA wait.
  OpTiming t = assemble_timing(w, rates_, compute, memory, busy, rates_.efficiency().op_overhead,
                               on_one_unit(compute, mxu_s, vector_s));
  t.cycles = c.cycles;
  return t;
}

}  // namespace podsim::chip
