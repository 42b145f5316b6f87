#include "chip/roofline.h"

#include <algorithm>

namespace podsim::chip {
namespace {

// x / ceil_to(x, unit): the used share of x's padded extent.
double fill(uint64_t x, uint64_t unit) {
  const uint64_t padded = (x + unit - 1) / unit * unit;
  return static_cast<double>(x) / static_cast<double>(padded);
}

}  // namespace

RooflineModel::RooflineModel(const config::ChipSpec& chip, const Efficiency& efficiency)
    : rates_(chip, efficiency) {}

double RooflineModel::padding(const MxuPass& pass) const {
  const double m = static_cast<double>(pass.m);
  // Streaming m rows takes m / speedup cycles and must cover loading the
  // next weight tile, or the units wait on the load.
  const double reuse_rows = rates_.tile_load_cycles(pass.rate) * rates_.speedup(pass.rate);
  return fill(pass.k, rates_.mxu_rows()) * fill(pass.n, rates_.mxu_columns()) *
         (m / std::max(m, reuse_rows));
}

double RooflineModel::tile_overhead_seconds(const MxuPass& pass) const {
  const double cycles = rates_.efficiency().mxu_tile_overhead_cycles;
  if (cycles == 0)
    return 0;
  const uint64_t rows = rates_.mxu_rows();
  const uint64_t columns = rates_.mxu_columns();
  const uint64_t tiles =
      pass.batch * ((pass.k + rows - 1) / rows) * ((pass.n + columns - 1) / columns);
  const uint64_t rounds = (tiles + rates_.mxu_count() - 1) / rates_.mxu_count();
  return static_cast<double>(rounds) * cycles / rates_.clock_hz();
}

OpTiming RooflineModel::time(const Op& op) const {
  const OpWork w = work(op);
  double mxu_s = 0;
  for (const MxuPass& pass : mxu_passes(op)) {
    const double rate = rates_.peak(pass.rate) * rates_.efficiency().mxu * padding(pass);
    mxu_s += 2.0 * pass.useful_macs() / rate + tile_overhead_seconds(pass);
  }
  const double vector_s = w.vector_flops / rates_.vector_flops_per_s();
  const sim::Time compute = time_from_seconds(std::max(mxu_s, vector_s));
  const sim::Time memory = rates_.hbm_time(w.hbm_bytes());
  return assemble_timing(w, rates_, compute, memory, std::max(compute, memory),
                         rates_.efficiency().op_overhead, on_one_unit(compute, mxu_s, vector_s));
}

}  // namespace podsim::chip
