// The "network" process of a trace: a track per mesh axis, busy whenever
// some work over that axis is in flight. Shared by the serving-step and
// operation-list traces; internal to the report layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report/busy_spans.h"
#include "report/trace_events.h"

namespace podsim::report {

class NetworkTracks {
 public:
  // Tracks for `axes` (in this order) in process `pid`, with thread ids from
  // `first_tid` up.
  NetworkTracks(TraceEventWriter& writer, uint32_t pid, std::vector<std::string> axes,
                uint32_t first_tid);

  // Work over `axes` during `span`. An axis not named in the constructor
  // gets a track after the others.
  void add(const std::vector<std::string>& axes, const NamedSpan& span);

  // Writes the process, its tracks and each track's merged busy periods:
  // one slice per period, named after its first piece of work ("+N" more).
  // Returns the next free thread id. O(spans log spans).
  uint32_t write();

 private:
  size_t axis_index(const std::string& axis);

  TraceEventWriter& writer_;
  uint32_t pid_;
  std::vector<std::string> axes_;
  std::vector<std::vector<NamedSpan>> spans_;  // per axis
  uint32_t first_tid_;
};

}  // namespace podsim::report
