// Reads a Chrome trace-event file as a viewer would, for tests: parses it
// into its schema, podsim.output.Trace (proto/podsim/trace.proto), with
// Protobuf's JSON parser, and checks the rules every podsim trace keeps, each
// broken rule a gtest failure:
//  - the document parses, and has no key the schema does not know;
//  - it is exactly what Protobuf's printer writes for the parsed message,
//    with a line break between events (one event a line);
//  - it is {"traceEvents": [...], "displayTimeUnit": "ns", ...};
//  - every event has ph, ts, pid and tid; complete events ("X") have a name,
//    a category and dur >= 0; metadata ("M") is one of the known kinds;
//  - metadata names every process and every track that has events;
//  - on each track, slices nest properly (none starts inside another and
//    ends after it), both in whole nanoseconds as Perfetto imports them and
//    in double microseconds with end = ts + dur, as speedscope and
//    chrome://tracing compute it;
//  - flow events come in "s"/"f" pairs with the same id, name and category,
//    each inside a slice of its own track, the "f" binding to it ("bp":"e").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "podsim/trace.pb.h"

namespace podsim::testing {

using TrackKey = std::pair<int64_t, int64_t>;  // (pid, tid)

struct TraceSlice {
  int64_t ts_ns = 0;  // as Perfetto imports them: each rounded to whole ns
  int64_t dur_ns = 0;
  double ts_us = 0;  // as written, for viewers that add them in doubles
  double dur_us = 0;
  std::string name;
  std::string cat;
  output::TraceArgs args;  // empty when absent
};

struct TraceFlowEnd {
  TrackKey track;
  int64_t ts_ns = 0;
};

struct ParsedTrace {
  output::Trace doc;
  std::map<int64_t, std::string> processes;
  std::map<TrackKey, std::string> threads;
  std::map<TrackKey, std::vector<TraceSlice>> slices;  // per track, in file order
  std::map<int64_t, TraceFlowEnd> flow_starts;         // by flow id
  std::map<int64_t, TraceFlowEnd> flow_ends;
  std::map<int64_t, std::string> flow_cats;

  // The track whose name is exactly `name`, if any.
  std::optional<TrackKey> track(const std::string& name) const;
  // Tracks whose names start with `prefix`.
  std::vector<TrackKey> tracks_starting(const std::string& prefix) const;
};

ParsedTrace parse_and_check_trace(const std::string& text);

}  // namespace podsim::testing
