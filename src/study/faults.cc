#include "study/faults.h"

#include <algorithm>

namespace podsim::study {

config::ChipSpec slowed_chip(const config::ChipSpec& chip, const config::StragglerSpec& s) {
  config::ChipSpec slow = chip;
  slow.peak_bf16_flops *= s.compute_factor;
  slow.peak_int8_ops *= s.compute_factor;
  slow.peak_fp8_flops *= s.compute_factor;
  slow.mxu_clock_hz *= s.compute_factor;
  // At least 1 B/s: the loader's floors (1 MB/s x 0.001) keep it far above.
  slow.hbm_bandwidth = sim::Bandwidth::bytes_per_s(std::max<uint64_t>(
      1,
      static_cast<uint64_t>(static_cast<double>(chip.hbm_bandwidth.bytes_per_s()) * s.hbm_factor)));
  return slow;
}

StragglerModels straggler_models(const topo::Pod& pod, const ComputeFactory& make) {
  StragglerModels m;
  for (topo::ChipId c = 0; c < pod.chip_count(); ++c) {
    if (const config::StragglerSpec* s = pod.straggler(c)) {
      m.owned.push_back(make(slowed_chip(pod.spec().chip, *s)));
      m.by_chip.emplace_back(c, m.owned.back().get());
    }
  }
  return m;
}

chip::OpTiming SlowestChipModel::time(const chip::Op& op) const {
  chip::OpTiming slowest = base_.time(op);
  for (const chip::ComputeModel* m : others_) {
    const chip::OpTiming t = m->time(op);
    if (t.time > slowest.time) {
      slowest = t;
    }
  }
  return slowest;
}

}  // namespace podsim::study
