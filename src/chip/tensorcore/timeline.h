// A TensorCore kernel's pipeline as unit slices (chip/unit_timeline.h), for
// the trace's unit tracks: the closed form of pipeline.h laid out in time.
//
//   DMA     [fetch 0]      [transfers 0]   [transfers 1] ...      [write-back]
//   MXU              [fill]   [step 0]        [step 1]   ... [step N-1]
//   vector                    [step 0]        [step 1]   ...
//   issue                  [0]            [1]            ...           [overhead]
//
// The first step's operands are fetched, the matrix units filled (their
// first weight load, fill and drain, which the closed form pays once), then
// step i starts at fetch + fill + i x interval: its issue, then its
// matrix-unit and vector-unit work side by side, while the DMA engines move
// the next step's operands and the previous one's results. The last step's
// results are written back, and the op's overhead follows. The first and
// last kShownSteps steps are drawn one by one, those between as one slice
// per track. Every instant is rounded up to whole picoseconds (monotonic, so
// slices on a track never overlap) and clamped to the op's time.
#pragma once

#include <vector>

#include "chip/compute_model.h"
#include "chip/tensorcore/core_rates.h"
#include "chip/tensorcore/pipeline.h"
#include "chip/unit_timeline.h"

namespace podsim::chip::tensorcore {

// `steps` and `cycles` a tiling's (Tiling), `timing` the op's as the model
// gave it (its time and overhead).
std::vector<UnitSlice> kernel_timeline(const KernelSteps& steps, const CoreRates& rates,
                                       const OpTiming& timing);

}  // namespace podsim::chip::tensorcore
