#include "chip/chip_rates.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace podsim::chip {
namespace {

void check_factor(const char* name, double value) {
  if (!(value > 0 && value <= 1)) {
    throw std::invalid_argument(std::string("chip efficiency ") + name +
                                " must be in (0, 1], got " + std::to_string(value));
  }
}

}  // namespace

ChipRates::ChipRates(const config::ChipSpec& chip, const Efficiency& efficiency)
    : efficiency_(efficiency),
      mxu_count_(chip.mxu_count),
      mxu_rows_(chip.mxu_rows),
      mxu_columns_(chip.mxu_columns),
      clock_hz_(chip.mxu_clock_hz),
      weight_load_bytes_per_cycle_(config::weight_load_bytes_per_cycle(chip)) {
  check_factor("mxu", efficiency.mxu);
  check_factor("hbm", efficiency.hbm);
  check_factor("vector", efficiency.vector);
  if (efficiency.op_overhead < sim::Time::zero())
    throw std::invalid_argument("chip op_overhead must be >= 0");
  if (efficiency.hbm_latency < sim::Time::zero())
    throw std::invalid_argument("chip hbm_latency must be >= 0");
  if (!(efficiency.mxu_tile_overhead_cycles >= 0 && efficiency.mxu_tile_overhead_cycles <= 1e6))
    throw std::invalid_argument("chip mxu_tile_overhead_cycles must be in [0, 1e6]");
  if (!(chip.peak_bf16_flops > 0))
    throw std::invalid_argument("chip " + chip.name + " has no bf16 peak");
  if (chip.hbm_bandwidth.is_zero())
    throw std::invalid_argument("chip " + chip.name + " has no HBM bandwidth");
  if (chip.mxu_count == 0 || chip.mxu_rows == 0 || chip.mxu_columns == 0 ||
      !(chip.mxu_clock_hz > 0))
    throw std::invalid_argument("chip " + chip.name + " has no matrix units");
  if (!(weight_load_bytes_per_cycle_ > 0))
    throw std::invalid_argument("chip " + chip.name + " has no weight-load rate");

  peak_[static_cast<size_t>(Rate::kBf16)] = chip.peak_bf16_flops;
  peak_[static_cast<size_t>(Rate::kInt8)] = std::max(chip.peak_int8_ops, 0.0);
  peak_[static_cast<size_t>(Rate::kFp8)] = std::max(chip.peak_fp8_flops, 0.0);
  vector_flops_per_s_ = chip.peak_bf16_flops / kVectorPeakDivisor * efficiency.vector;
  // Floor, so the derated bandwidth never exceeds the published one; at
  // least 1 B/s.
  const double bps =
      std::floor(static_cast<double>(chip.hbm_bandwidth.bytes_per_s()) * efficiency.hbm);
  hbm_ = sim::Bandwidth::bytes_per_s(std::max<uint64_t>(1, static_cast<uint64_t>(bps)));
}

sim::Time time_from_seconds(double seconds) {
  const double ps = std::ceil(seconds * 1e12);
  if (!(ps < 9.223372036854775807e18)) {
    throw sim::TimeOverflow("podsim::chip: an operation time of " + std::to_string(seconds) +
                            " s overflows 64-bit picoseconds");
  }
  return sim::Time::ps(static_cast<int64_t>(std::max(ps, 0.0)));
}

UnitParts on_one_unit(sim::Time compute, double mxu_seconds, double vector_seconds) {
  UnitParts p;
  (mxu_seconds >= vector_seconds && mxu_seconds > 0 ? p.mxu : p.vector) = compute;
  return p;
}

OpTiming assemble_timing(const OpWork& work, const ChipRates& rates, sim::Time compute,
                         sim::Time memory, sim::Time busy, sim::Time overhead,
                         const UnitParts& parts) {
  OpTiming t;
  t.time = busy + overhead;
  t.compute_time = compute;
  t.memory_time = memory;
  if (overhead > busy)
    t.bound = OpTiming::Bound::kOverhead;
  else
    t.bound = compute >= memory ? OpTiming::Bound::kCompute : OpTiming::Bound::kMemory;
  t.flops = work.flops();
  t.bytes = work.hbm_bytes();
  switch (work.mxu_rate) {
    case Rate::kBf16:
      t.work.mxu_bf16_flops = work.mxu_flops;
      break;
    case Rate::kInt8:
      t.work.mxu_int8_ops = work.mxu_flops;
      break;
    case Rate::kFp8:
      t.work.mxu_fp8_flops = work.mxu_flops;
      break;
  }
  t.work.vector_flops = work.vector_flops;
  t.work.hbm_bytes = static_cast<double>(work.hbm_bytes());
  const double seconds = t.time.to_s();
  if (seconds > 0) {
    t.achieved_flops_per_s = t.flops / seconds;
    t.mxu_utilisation = std::min(1.0, work.mxu_flops / (rates.peak(work.mxu_rate) * seconds));
  }
  sim::Time left = busy;
  const auto take = [&left](sim::Time part) {
    const sim::Time taken = std::clamp(part, sim::Time::zero(), left);
    left -= taken;
    return taken;
  };
  t.units.mxu = take(parts.mxu);
  t.units.vector = take(parts.vector);
  t.units.issue = take(parts.issue);
  t.units.dma_wait = left;
  t.units.overhead = overhead;
  return t;
}

UnitTimes scale_units(const UnitTimes& u, sim::Time total) {
  const sim::Time from = u.total();
  UnitTimes out;
  if (from == sim::Time::zero()) {
    out.dma_wait = total;
    return out;
  }
  std::array<sim::Time*, 5> to{&out.mxu, &out.vector, &out.issue, &out.dma_wait, &out.overhead};
  const std::array<sim::Time, 5> parts{u.mxu, u.vector, u.issue, u.dma_wait, u.overhead};
  const double ratio = static_cast<double>(total.count_ps()) / static_cast<double>(from.count_ps());
  sim::Time given;
  size_t largest = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto ps =
        static_cast<int64_t>(std::floor(static_cast<double>(parts[i].count_ps()) * ratio));
    *to[i] = std::min(sim::Time::ps(ps), total - given);
    given += *to[i];
    if (parts[i] > parts[largest])
      largest = i;
  }
  *to[largest] += total - given;
  return out;
}

}  // namespace podsim::chip
