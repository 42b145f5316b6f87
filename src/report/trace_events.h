// A writer of Chrome trace-event JSON, the format ui.perfetto.dev and
// chrome://tracing load: {"traceEvents": [...], "displayTimeUnit": "ns",
// "otherData": {...}}, whose schema is proto/podsim/trace.proto.
//
// It knows processes, threads (tracks), complete events ("X"), metadata
// ("M") and flow arrows ("s"/"f"); callers decide what the tracks mean.
// Each event is a podsim.output.TraceEvent printed by Protobuf's JSON
// printer (output_json.h) as it is written, so memory does not grow with
// the trace; one event per line, so traces diff and grep well. Without its
// line breaks the document is exactly what the printer writes for the
// whole podsim.output.Trace (tests/report check it).
//
// Time. The format counts microseconds; viewers work in whole nanoseconds
// (Perfetto rounds each ts and dur to ns on import) or in doubles
// (speedscope and chrome://tracing take a slice's end to be ts + dur).
// Simulated picoseconds are therefore rounded down to whole nanoseconds
// here, start and end separately, and written so that both readings agree:
// ts is the nanoseconds as microseconds (three decimals), and dur is the
// double for which ts + dur is exactly the end's ts in double arithmetic
// (so it may print as 327.76999999999998 where the decimal difference is
// 327.77), which still rounds to the whole nanoseconds. Rounding is
// monotonic, so spans that are back to back (or disjoint) on a track stay
// so in every viewer, and nothing nests by accident. Exact picosecond
// durations can go in an event's args.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "podsim/trace.pb.h"
#include "sim/time.h"

namespace podsim::report {

// A track: Chrome's (process id, thread id). Thread ids are unique in the
// whole trace, not just in their process (Perfetto keys threads by tid).
struct TraceTrack {
  uint32_t pid = 0;
  uint32_t tid = 0;
};

// An event's "args" object: the fields a caller sets are written.
using TraceArgs = output::TraceArgs;
// The document's "otherData" object.
using TraceMetadata = output::TraceMetadata;

// Whole nanoseconds of `t`, rounded down, in microseconds: what ts and dur hold.
double trace_us(sim::Time t);

class TraceEventWriter {
 public:
  // Writes the opening of the document to `out`.
  explicit TraceEventWriter(std::ostream& out);
  TraceEventWriter(const TraceEventWriter&) = delete;
  TraceEventWriter& operator=(const TraceEventWriter&) = delete;

  // Metadata: a process's name and place in the viewer (lower first).
  void process(uint32_t pid, std::string_view name, int64_t sort_index);
  // Metadata: free text shown with a process (chrome://tracing shows it).
  void process_labels(uint32_t pid, std::string_view labels);
  // Metadata: a track's name and place within its process (lower first).
  void thread(TraceTrack track, std::string_view name, int64_t sort_index);

  // A complete event spanning [start, end] on `track`; end >= start. With
  // `args`, the event has an "args" object (even if no field is set).
  void slice(TraceTrack track, std::string_view name, std::string_view cat, sim::Time start,
             sim::Time end, const TraceArgs* args = nullptr);
  void slice(TraceTrack track, std::string_view name, std::string_view cat, sim::Time start,
             sim::Time end, const TraceArgs& args) {
    slice(track, name, cat, start, end, &args);
  }

  // An arrow from the slice on `from` that spans [from_start, from_end] to
  // the one on `to` that spans [to_start, to_end], both written by slice().
  // The two flow events sit at their slices' midpoints and bind to the
  // enclosing slice, as both viewers expect. Returns the flow id (from 1).
  uint64_t flow(std::string_view name, std::string_view cat, TraceTrack from, sim::Time from_start,
                sim::Time from_end, TraceTrack to, sim::Time to_start, sim::Time to_end);

  // Closes the event list and writes "otherData" (metadata about the run,
  // ignored by viewers that do not show it). Call once, last.
  void finish(const TraceMetadata& other);

  uint64_t events() const { return events_; }

 private:
  // Clears event_ and starts it as an event of phase `ph`; emit() writes it.
  output::TraceEvent& begin_event(std::string_view ph);
  // Writes event_ on its own line. O(size of the event).
  void emit();
  void metadata(TraceTrack track, std::string_view kind);
  void flow_event(std::string_view ph, uint64_t id, std::string_view name, std::string_view cat,
                  TraceTrack track, sim::Time start, sim::Time end);

  std::ostream& out_;
  output::TraceEvent event_;  // reused: one event is built at a time
  std::string line_;          // reused: the printed event
  uint64_t events_ = 0;
  uint64_t next_flow_ = 1;
  bool finished_ = false;
};

}  // namespace podsim::report
