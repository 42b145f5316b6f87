// Which chips a serving trace shows (`podsim run --trace-chips LIST`).
//
// A LIST is comma-separated items: a chip id ("17"), an inclusive range of
// ids ("0-15") or "critical" (the chip that finishes last), e.g.
// "0-3,17,critical". Without a list, a trace shows every simulated chip up to
// a limit (64), and past it the critical chip and the first chip of each
// pipeline stage.
//
// Replica folding: chips the engine did not simulate (their timelines equal
// a simulated replica's) are traced as that simulated representative, and
// the choice says so in its notes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/step.h"
#include "topo/pod.h"

namespace podsim::report {

// A bad LIST: the message names the item and why.
class TraceChipsError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct TraceChipRequest {
  std::vector<topo::ChipId> chips;  // the ids listed (ranges expanded), sorted, unique
  bool critical = false;            // "critical" was listed
  bool given() const { return critical || !chips.empty(); }
};

// Parses a LIST for a pod of `chip_count` chips. Throws TraceChipsError on an
// empty list or item, anything but digits, '-' and "critical", a range that
// runs backwards, or an id >= chip_count. O(ids listed).
TraceChipRequest parse_trace_chips(std::string_view list, uint32_t chip_count);

inline constexpr uint32_t kDefaultTraceChipLimit = 64;

struct TraceChipChoice {
  std::vector<uint32_t> indices;   // into StepResult::chips, increasing
  std::vector<std::string> notes;  // folding and limits, for the trace's metadata
  bool limited = false;            // the default left simulated chips out (said by the last note)
};

// The simulated chips to trace for `request` (an empty request: the default
// above, with `limit`). O(chips x dims).
TraceChipChoice choose_trace_chips(const TraceChipRequest& request, const topo::Pod& pod,
                                   const engine::StepResult& step,
                                   uint32_t limit = kDefaultTraceChipLimit);

}  // namespace podsim::report
