#include "chip/unit_timeline.h"

#include <algorithm>

#include "chip/compute_model.h"

namespace podsim::chip {

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::kMxu:
      return "MXU";
    case Unit::kVector:
      return "vector unit";
    case Unit::kIssue:
      return "issue";
    case Unit::kDma:
      return "DMA";
  }
  return "?";
}

std::string_view to_string(UnitWork work) {
  switch (work) {
    case UnitWork::kSteps:
      return "steps";
    case UnitWork::kFill:
      return "fill";
    case UnitWork::kFetch:
      return "fetch";
    case UnitWork::kTransfers:
      return "transfers";
    case UnitWork::kWriteBack:
      return "write-back";
    case UnitWork::kCompute:
      return "compute";
    case UnitWork::kStream:
      return "HBM stream";
    case UnitWork::kOverhead:
      return "op overhead";
  }
  return "?";
}

std::vector<UnitSlice> overlapped_timeline(const OpTiming& timing) {
  std::vector<UnitSlice> out;
  const sim::Time busy = timing.time - timing.units.overhead;
  const auto add = [&](Unit unit, UnitWork work, sim::Time start, sim::Time end) {
    end = std::min(end, timing.time);
    if (end > start)
      out.push_back({unit, work, start, end, 0, 0});
  };
  add(Unit::kMxu, UnitWork::kCompute, sim::Time::zero(), timing.units.mxu);
  add(Unit::kVector, UnitWork::kCompute, sim::Time::zero(), timing.units.vector);
  add(Unit::kDma, UnitWork::kStream, sim::Time::zero(), std::min(timing.memory_time, busy));
  add(Unit::kIssue, UnitWork::kOverhead, busy, timing.time);
  return out;
}

}  // namespace podsim::chip
