// How one operation used the chip's units over its duration, for traces
// (`podsim run --trace-units LAYER`): slices on four unit tracks, relative
// to the operation's start. The TensorCore model draws its pipeline (each
// step's issue, matrix-unit and vector-unit work and its transfers); the
// other models, which do not play a pipeline, draw their overlapped
// compute and HBM times (roofline's reading: both from the start).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace podsim::chip {

struct OpTiming;

enum class Unit : uint8_t { kMxu, kVector, kIssue, kDma };
inline constexpr Unit kUnits[] = {Unit::kMxu, Unit::kVector, Unit::kIssue, Unit::kDma};

// "MXU", "vector unit", "issue", "DMA".
std::string_view to_string(Unit unit);

enum class UnitWork : uint8_t {
  kSteps,      // pipelined steps [first_step, first_step + steps)
  kFill,       // the matrix units' first weight load, fill and drain
  kFetch,      // the first step's operands, HBM -> VMEM
  kTransfers,  // during a step: the next step's fetch and the last one's write-back
  kWriteBack,  // the last step's results, VMEM -> HBM
  kCompute,    // non-pipelined models: the op's compute time on the unit
  kStream,     // non-pipelined models: the op's HBM stream
  kOverhead,   // the per-operation overhead
};

// "steps", "fill", "fetch", "transfers", "write-back", "compute", "HBM
// stream", "op overhead".
std::string_view to_string(UnitWork work);

struct UnitSlice {
  Unit unit = Unit::kMxu;
  UnitWork work = UnitWork::kCompute;
  sim::Time start;  // from the operation's start
  sim::Time end;
  uint64_t first_step = 0;  // kSteps and kTransfers: the steps the slice stands for
  uint64_t steps = 0;
};

// Steps a pipelined kernel draws one by one at each end; the steps between
// are one slice per track (a steady state of identical steps).
inline constexpr uint64_t kShownSteps = 8;

// The non-pipelined reading of `timing`: its matrix-unit or vector-unit time
// (units.mxu, units.vector) and its HBM time from the start, the overhead
// after the busy time. Every slice lies within [0, timing.time].
std::vector<UnitSlice> overlapped_timeline(const OpTiming& timing);

}  // namespace podsim::chip
