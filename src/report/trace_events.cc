#include "report/trace_events.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "report/output_json.h"

namespace podsim::report {
namespace {

constexpr int64_t kPsPerNs = 1000;

int64_t floor_ns(sim::Time t) {
  return t.count_ps() / kPsPerNs;
}  // times are >= 0

double ns_to_us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

// The duration to write for a slice from `start_us` to `end_us` (both as
// written): the double d with start_us + d == end_us exactly in double
// arithmetic, which is how viewers that work in microseconds (speedscope,
// chrome://tracing) find a slice's end. Where the start is at least half
// the end, end_us - start_us is exact (Sterbenz) and is that d; otherwise
// the difference is off by an ulp at most and a step corrects it. d stays
// within an ulp of the true difference, so rounding it to nanoseconds (as
// Perfetto does) gives the whole-nanosecond duration.
double duration_us(double start_us, double end_us) {
  double d = end_us - start_us;
  for (int step = 0; step < 4 && start_us + d != end_us; ++step) {
    d = std::nextafter(d, start_us + d < end_us ? std::numeric_limits<double>::infinity() : 0.0);
  }
  return d;
}

std::string str(std::string_view s) {
  return std::string(s);
}

}  // namespace

double trace_us(sim::Time t) {
  return ns_to_us(floor_ns(t));
}

TraceEventWriter::TraceEventWriter(std::ostream& out) : out_(out) {
  out_ << "{\"traceEvents\":[\n";
}

output::TraceEvent& TraceEventWriter::begin_event(std::string_view ph) {
  if (finished_) {
    throw std::logic_error("TraceEventWriter: event after finish()");
  }
  event_.Clear();
  event_.set_ph(str(ph));
  return event_;
}

void TraceEventWriter::emit() {
  if (events_++ != 0) {
    out_ << ",\n";
  }
  line_.clear();
  append_json(event_, JsonStyle{}, line_);
  out_ << line_;
}

// A metadata event of `kind` on `track`: ts 0, args filled in by the caller.
void TraceEventWriter::metadata(TraceTrack track, std::string_view kind) {
  output::TraceEvent& e = begin_event("M");
  e.set_name(str(kind));
  e.set_pid(track.pid);
  e.set_tid(track.tid);
  e.set_ts(0);
}

void TraceEventWriter::process(uint32_t pid, std::string_view name, int64_t sort_index) {
  metadata({pid, 0}, "process_name");
  event_.mutable_args()->set_name(str(name));
  emit();
  metadata({pid, 0}, "process_sort_index");
  event_.mutable_args()->set_sort_index(static_cast<int32_t>(sort_index));
  emit();
}

void TraceEventWriter::process_labels(uint32_t pid, std::string_view labels) {
  metadata({pid, 0}, "process_labels");
  event_.mutable_args()->set_labels(str(labels));
  emit();
}

void TraceEventWriter::thread(TraceTrack track, std::string_view name, int64_t sort_index) {
  metadata(track, "thread_name");
  event_.mutable_args()->set_name(str(name));
  emit();
  metadata(track, "thread_sort_index");
  event_.mutable_args()->set_sort_index(static_cast<int32_t>(sort_index));
  emit();
}

void TraceEventWriter::slice(TraceTrack track, std::string_view name, std::string_view cat,
                             sim::Time start, sim::Time end, const TraceArgs* args) {
  if (end < start) {
    throw std::logic_error("TraceEventWriter: slice ends before it starts");
  }
  const int64_t start_ns = floor_ns(start);
  output::TraceEvent& e = begin_event("X");
  e.set_name(str(name));
  e.set_cat(str(cat));
  e.set_pid(track.pid);
  e.set_tid(track.tid);
  const double start_us = ns_to_us(start_ns);
  e.set_ts(start_us);
  e.set_dur(duration_us(start_us, ns_to_us(floor_ns(end))));
  if (args != nullptr) {
    *e.mutable_args() = *args;
  }
  emit();
}

void TraceEventWriter::flow_event(std::string_view ph, uint64_t id, std::string_view name,
                                  std::string_view cat, TraceTrack track, sim::Time start,
                                  sim::Time end) {
  // The midpoint lies inside the slice even after rounding: both ends are
  // rounded down the same way the slice's own ts and dur were.
  const int64_t mid_ns = (floor_ns(start) + floor_ns(end)) / 2;
  output::TraceEvent& e = begin_event(ph);
  e.set_id(static_cast<uint32_t>(id));
  e.set_name(str(name));
  e.set_cat(str(cat));
  e.set_pid(track.pid);
  e.set_tid(track.tid);
  e.set_ts(ns_to_us(mid_ns));
  if (ph == "f") {
    e.set_bp("e");  // bind to the enclosing slice, not the next one
  }
  emit();
}

uint64_t TraceEventWriter::flow(std::string_view name, std::string_view cat, TraceTrack from,
                                sim::Time from_start, sim::Time from_end, TraceTrack to,
                                sim::Time to_start, sim::Time to_end) {
  const uint64_t id = next_flow_++;
  if (id > UINT32_MAX) {
    throw std::logic_error("TraceEventWriter: more than 2^32 - 1 flows");
  }
  flow_event("s", id, name, cat, from, from_start, from_end);
  flow_event("f", id, name, cat, to, to_start, to_end);
  return id;
}

void TraceEventWriter::finish(const TraceMetadata& other) {
  if (finished_) {
    throw std::logic_error("TraceEventWriter: finish() called twice");
  }
  finished_ = true;
  // What Protobuf's printer writes after the events of a Trace, with line breaks.
  line_ = "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":";
  append_json(other, JsonStyle{}, line_);
  out_ << line_ << "}\n";
}

}  // namespace podsim::report
