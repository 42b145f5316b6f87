// Busy periods of a shared resource (a mesh axis, say) from the spans of the
// work that used it: overlapping or touching spans merge into one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace podsim::report {

struct NamedSpan {
  sim::Time start;
  sim::Time end;
  std::string name;  // what ran, e.g. an instruction's name
};

struct BusySpan {
  sim::Time start;
  sim::Time end;
  std::string first;   // name of the earliest span merged in (ties: the first given)
  uint32_t count = 0;  // spans merged in
};

// The union of `spans` as disjoint busy periods, in time order. Spans that
// overlap or touch (one ends where the next starts) merge. O(n log n).
std::vector<BusySpan> merge_busy(std::vector<NamedSpan> spans);

}  // namespace podsim::report
