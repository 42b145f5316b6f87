#include "report/trace_events.h"

#include <stdexcept>

namespace podsim::report {
namespace {

constexpr int64_t kPsPerNs = 1000;

int64_t floor_ns(sim::Time t) {
  return t.count_ps() / kPsPerNs;
}  // times are >= 0

double ns_to_us(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

}  // namespace

double trace_us(sim::Time t) {
  return ns_to_us(floor_ns(t));
}

TraceEventWriter::TraceEventWriter(std::ostream& out) : out_(out) {
  out_ << "{\"traceEvents\":[\n";
}

JsonWriter TraceEventWriter::begin_event(std::string_view ph) {
  if (finished_) {
    throw std::logic_error("TraceEventWriter: event after finish()");
  }
  if (events_++ != 0) {
    out_ << ",\n";
  }
  JsonWriter j(out_, 0);
  j.begin_object().field("ph", ph);
  return j;
}

void TraceEventWriter::process(uint32_t pid, std::string_view name, int64_t sort_index) {
  {
    JsonWriter j = begin_event("M");
    j.field("name", "process_name").field("pid", pid).field("tid", 0u).field("ts", 0);
    j.key("args").begin_object().field("name", name).end_object().end_object();
  }
  JsonWriter j = begin_event("M");
  j.field("name", "process_sort_index").field("pid", pid).field("tid", 0u).field("ts", 0);
  j.key("args").begin_object().field("sort_index", sort_index).end_object().end_object();
}

void TraceEventWriter::process_labels(uint32_t pid, std::string_view labels) {
  JsonWriter j = begin_event("M");
  j.field("name", "process_labels").field("pid", pid).field("tid", 0u).field("ts", 0);
  j.key("args").begin_object().field("labels", labels).end_object().end_object();
}

void TraceEventWriter::thread(TraceTrack track, std::string_view name, int64_t sort_index) {
  {
    JsonWriter j = begin_event("M");
    j.field("name", "thread_name").field("pid", track.pid).field("tid", track.tid).field("ts", 0);
    j.key("args").begin_object().field("name", name).end_object().end_object();
  }
  JsonWriter j = begin_event("M");
  j.field("name", "thread_sort_index").field("pid", track.pid).field("tid", track.tid);
  j.field("ts", 0);
  j.key("args").begin_object().field("sort_index", sort_index).end_object().end_object();
}

void TraceEventWriter::slice(TraceTrack track, std::string_view name, std::string_view cat,
                             sim::Time start, sim::Time end, const TraceArgs& args) {
  if (end < start) {
    throw std::logic_error("TraceEventWriter: slice ends before it starts");
  }
  const int64_t start_ns = floor_ns(start);
  JsonWriter j = begin_event("X");
  j.field("name", name).field("cat", cat).field("pid", track.pid).field("tid", track.tid);
  j.field("ts", ns_to_us(start_ns)).field("dur", ns_to_us(floor_ns(end) - start_ns));
  if (args) {
    j.key("args").begin_object();
    args(j);
    j.end_object();
  }
  j.end_object();
}

void TraceEventWriter::flow_event(std::string_view ph, uint64_t id, std::string_view name,
                                  std::string_view cat, TraceTrack track, sim::Time start,
                                  sim::Time end) {
  // The midpoint lies inside the slice even after rounding: both ends are
  // rounded down the same way the slice's own ts and dur were.
  const int64_t mid_ns = (floor_ns(start) + floor_ns(end)) / 2;
  JsonWriter j = begin_event(ph);
  j.field("id", id).field("name", name).field("cat", cat).field("pid", track.pid);
  j.field("tid", track.tid).field("ts", ns_to_us(mid_ns));
  if (ph == "f") {
    j.field("bp", "e");  // bind to the enclosing slice, not the next one
  }
  j.end_object();
}

uint64_t TraceEventWriter::flow(std::string_view name, std::string_view cat, TraceTrack from,
                                sim::Time from_start, sim::Time from_end, TraceTrack to,
                                sim::Time to_start, sim::Time to_end) {
  const uint64_t id = next_flow_++;
  flow_event("s", id, name, cat, from, from_start, from_end);
  flow_event("f", id, name, cat, to, to_start, to_end);
  return id;
}

void TraceEventWriter::finish(const TraceArgs& other) {
  if (finished_) {
    throw std::logic_error("TraceEventWriter: finish() called twice");
  }
  finished_ = true;
  out_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":";
  JsonWriter j(out_, 0);
  j.begin_object();
  if (other) {
    other(j);
  }
  j.end_object();
  out_ << "}\n";
}

}  // namespace podsim::report
