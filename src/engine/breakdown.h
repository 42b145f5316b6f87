// Where one chip's step time went: a sweep over its instruction spans.
//
// Every instant of [0, end] is exactly one of: compute-bound (a compute
// instruction bound by the matrix or vector units, or by fixed overhead),
// memory-bound (a compute instruction bound by HBM), exposed collective (no
// compute, a collective or stage transfer in flight) or idle (neither:
// waiting on dependencies, pipeline bubbles). Collective time under compute
// is counted again as overlapped. The four parts add up to `end` exactly (all
// integer picoseconds). Exposed and overlapped time is charged to the
// collective in flight that ends last: the one the chip is waiting for.
// Compute and memory-bound time is also split by the chip's units (each
// compute instruction's chip::UnitTimes, which add up to its span), so the
// units add up to compute + memory exactly, per chip, layer and op class.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/step.h"

namespace podsim::engine {

struct TimedInstruction {
  enum class Kind : uint8_t { kComputeBound, kMemoryBound, kCommunication };
  Span span;
  Kind kind = Kind::kComputeBound;
  chip::UnitTimes units;     // compute: its span's parts by unit (total == span)
  chip::WorkDone work;       // compute: what it did, for the energy
  uint32_t layer_group = 0;  // index into the caller's layer keys
  uint32_t class_group = 0;  // index into the caller's op-class keys
};

// The breakdown's key for an instruction's layer: "L<n>" inside the layer
// stack, else "embed", "head" or "other". Reports and traces use it so their
// names match the breakdown's by_layer keys.
std::string breakdown_layer_key(const workload::Instruction& ins);

// Fills `by_layer` and `by_class` (already sized, keys set) and returns the
// chip's totals. O(n log n) in the number of instructions.
ChipBreakdown sweep_breakdown(std::span<const TimedInstruction> instructions, sim::Time end,
                              std::vector<GroupTime>& by_layer, std::vector<GroupTime>& by_class);

}  // namespace podsim::engine
