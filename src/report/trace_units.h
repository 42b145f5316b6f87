// The unit tracks of a serving trace (`podsim run --trace F --trace-units
// LAYER`): how the critical chip's units ran one layer's compute. A process
// "chip N units, layer L" with a track per unit (MXU, vector unit, issue,
// DMA); each compute instruction of the layer is drawn at its span as the
// compute model ran its kernel (chip::ComputeModel::unit_timeline): the
// pipeline's fetches, fill, steps, transfers and write-back under
// --compute tensorcore, the overlapped compute and HBM stream otherwise.
// One layer only, so traces stay small: a kernel draws at most
// 2 x chip::kShownSteps steps one by one and the rest as one slice.
#pragma once

#include <string_view>
#include <vector>

#include "chip/compute_model.h"
#include "engine/step.h"
#include "report/trace_events.h"
#include "workload/program.h"

namespace podsim::report {

struct UnitTrackInputs {
  const std::vector<workload::Instruction>& program;  // the chip's stage's
  const std::vector<engine::Span>& spans;             // the chip's, one per instruction
  const chip::ComputeModel& compute;                  // the model the chip ran
  std::string_view layer;                             // a breakdown layer key (L3, embed, ...)
  topo::ChipId chip = 0;
  uint32_t pid = 0;  // the process to draw in (named here)
};

// Writes the process and its tracks (thread ids from `first_tid`) and
// returns the next free thread id. Instructions of other layers and
// collectives are not drawn.
uint32_t write_unit_tracks(TraceEventWriter& w, const UnitTrackInputs& in, uint32_t first_tid);

}  // namespace podsim::report
