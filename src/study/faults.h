// Faulty hardware in a run (topology dead_chips, degraded_links, stragglers;
// docs/inputs.md "Faults"): the compute models of straggler chips, and the
// comparison with the same pod repaired (--vs-healthy).
//
// A straggler runs its matrix units' clock, and so every compute peak, at
// compute_factor of the chip's, and its HBM at hbm_factor of the chip's
// bandwidth: its chip spec is slowed so, and the run's compute model is
// built again on it. In a serving step the straggler's instructions take
// those times (engine::StepOptions::stragglers); an operation list has one
// compute timeline for every chip, so each compute operation takes the
// slowest chip's time there.
#pragma once

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "chip/compute_model.h"
#include "config/topology_spec.h"
#include "topo/pod.h"

namespace podsim::study {

// `chip` with the straggler's factors applied.
config::ChipSpec slowed_chip(const config::ChipSpec& chip, const config::StragglerSpec& s);

using ComputeFactory = std::function<std::unique_ptr<chip::ComputeModel>(const config::ChipSpec&)>;

struct StragglerModels {
  std::vector<std::unique_ptr<chip::ComputeModel>> owned;
  std::vector<std::pair<topo::ChipId, const chip::ComputeModel*>> by_chip;  // chip order
};

// One model per straggler of `pod`, built by `make` on its slowed chip.
StragglerModels straggler_models(const topo::Pod& pod, const ComputeFactory& make);

// For each operation, the slowest of `base` and `others`' times (the
// operation list's one compute timeline). Neither must outlive this model.
class SlowestChipModel final : public chip::ComputeModel {
 public:
  SlowestChipModel(const chip::ComputeModel& base, std::vector<const chip::ComputeModel*> others)
      : base_(base), others_(std::move(others)) {}
  chip::OpTiming time(const chip::Op& op) const override;
  std::string_view name() const override { return base_.name(); }

 private:
  const chip::ComputeModel& base_;
  std::vector<const chip::ComputeModel*> others_;
};

}  // namespace podsim::study
