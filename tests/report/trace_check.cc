#include "trace_check.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace podsim::testing {
namespace {

int64_t to_ns(double us) {
  return std::llround(us * 1000.0);
}  // as Perfetto imports

bool inside(const std::vector<TraceSlice>& slices, int64_t ts) {
  return std::any_of(slices.begin(), slices.end(), [ts](const TraceSlice& s) {
    return s.ts_ns <= ts && ts <= s.ts_ns + s.dur_ns;
  });
}

void check_nesting(const std::string& track, std::vector<TraceSlice> slices) {
  std::stable_sort(slices.begin(), slices.end(), [](const TraceSlice& a, const TraceSlice& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.dur_ns > b.dur_ns;
  });
  std::vector<int64_t> open_ends;
  for (const TraceSlice& s : slices) {
    while (!open_ends.empty() && open_ends.back() <= s.ts_ns) {
      open_ends.pop_back();
    }
    if (!open_ends.empty()) {
      EXPECT_LE(s.ts_ns + s.dur_ns, open_ends.back())
          << "on " << track << ", '" << s.name << "' starts inside another slice and ends after it";
    }
    open_ends.push_back(s.ts_ns + s.dur_ns);
  }
}

// The same rule in the viewers' own arithmetic: a slice ends at ts + dur,
// added in doubles, and one that starts exactly where another ends does not
// start inside it.
void check_nesting_in_doubles(const std::string& track, std::vector<TraceSlice> slices) {
  std::stable_sort(slices.begin(), slices.end(), [](const TraceSlice& a, const TraceSlice& b) {
    return a.ts_us != b.ts_us ? a.ts_us < b.ts_us : a.dur_us > b.dur_us;
  });
  std::vector<double> open_ends;
  for (const TraceSlice& s : slices) {
    while (!open_ends.empty() && open_ends.back() <= s.ts_us) {
      open_ends.pop_back();
    }
    const double end = s.ts_us + s.dur_us;
    if (!open_ends.empty()) {
      EXPECT_LE(end, open_ends.back())
          << "on " << track << ", '" << s.name << "' (ts " << s.ts_us << ", ts + dur " << end
          << ") starts inside another slice and ends after it in double arithmetic";
    }
    open_ends.push_back(end);
  }
}

void read_metadata(const output::TraceEvent& e, ParsedTrace& t) {
  const std::string& name = e.name();
  const int64_t pid = e.pid();
  const int64_t tid = e.tid();
  EXPECT_TRUE(e.has_args()) << "metadata " << name << " without args";
  if (name == "process_name") {
    EXPECT_TRUE(e.args().has_name());
    t.processes[pid] = e.args().name();
  } else if (name == "thread_name") {
    EXPECT_TRUE(e.args().has_name());
    EXPECT_TRUE(t.threads.emplace(TrackKey{pid, tid}, e.args().name()).second)
        << "track named twice: " << pid << "/" << tid;
  } else if (name == "process_sort_index" || name == "thread_sort_index") {
    EXPECT_TRUE(e.args().has_sort_index());
  } else if (name == "process_labels") {
    EXPECT_TRUE(e.args().has_labels());
  } else {
    ADD_FAILURE() << "unknown metadata event " << name;
  }
}

// The document is the printer's one-line form of `doc` with line breaks
// between events (JSON strings hold no raw line break, so removing every
// '\n' leaves the one-line form).
void check_printed_by_protobuf(const std::string& text, const output::Trace& doc) {
  std::string expected;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(doc, &expected, options).ok());
  std::string joined;
  for (const char c : text) {
    if (c != '\n') {
      joined += c;
    }
  }
  EXPECT_EQ(joined, expected) << "not what Protobuf's printer writes for this trace";
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), doc.traceevents_size() + 4)
      << "not one event a line";
}

}  // namespace

std::optional<TrackKey> ParsedTrace::track(const std::string& name) const {
  for (const auto& [key, n] : threads) {
    if (n == name) {
      return key;
    }
  }
  return std::nullopt;
}

std::vector<TrackKey> ParsedTrace::tracks_starting(const std::string& prefix) const {
  std::vector<TrackKey> out;
  for (const auto& [key, n] : threads) {
    if (n.rfind(prefix, 0) == 0) {
      out.push_back(key);
    }
  }
  return out;
}

ParsedTrace parse_and_check_trace(const std::string& text) {
  ParsedTrace t;
  const auto status = google::protobuf::util::JsonStringToMessage(text, &t.doc);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) {
    return t;
  }
  check_printed_by_protobuf(text, t.doc);
  EXPECT_EQ(t.doc.displaytimeunit(), "ns");
  std::set<int64_t> pids_used;
  std::map<int64_t, std::pair<std::string, std::string>> flow_names;  // id -> (name, cat) of "s"
  for (const output::TraceEvent& e : t.doc.traceevents()) {
    EXPECT_TRUE(e.has_ph() && e.has_ts() && e.has_pid() && e.has_tid())
        << "event without ph, ts, pid or tid";
    const std::string& ph = e.ph();
    const TrackKey track{e.pid(), e.tid()};
    const int64_t ts = to_ns(e.ts());
    EXPECT_GE(ts, 0);
    if (ph == "M") {
      read_metadata(e, t);
      continue;
    }
    pids_used.insert(track.first);
    if (ph == "X") {
      EXPECT_TRUE(e.has_name() && e.has_cat() && e.has_dur()) << "slice without name, cat or dur";
      EXPECT_GE(e.dur(), 0.0);
      EXPECT_FALSE(e.has_id() || e.has_bp()) << "slice '" << e.name() << "' with flow keys";
      t.slices[track].push_back({ts, to_ns(e.dur()), e.ts(), e.dur(), e.name(), e.cat(), e.args()});
    } else if (ph == "s" || ph == "f") {
      EXPECT_TRUE(e.has_id() && e.has_name() && e.has_cat()) << "flow without id, name or cat";
      EXPECT_FALSE(e.has_dur() || e.has_args()) << "flow with slice keys";
      const int64_t id = e.id();
      auto& ends = ph == "s" ? t.flow_starts : t.flow_ends;
      EXPECT_TRUE(ends.emplace(id, TraceFlowEnd{track, ts}).second) << "flow " << id << " " << ph;
      const std::pair<std::string, std::string> nc{e.name(), e.cat()};
      if (ph == "f") {
        EXPECT_EQ(e.bp(), "e") << "flow " << id;
      }
      const auto [it, added] = flow_names.emplace(id, nc);
      EXPECT_TRUE(added || it->second == nc) << "flow " << id << ": name or category differ";
      t.flow_cats[id] = nc.second;
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (const int64_t pid : pids_used) {
    EXPECT_TRUE(t.processes.count(pid)) << "process " << pid << " has no name";
  }
  for (const auto& [key, slices] : t.slices) {
    EXPECT_TRUE(t.threads.count(key)) << "track " << key.first << "/" << key.second << " unnamed";
    const std::string& name = t.threads.count(key) ? t.threads.at(key) : "?";
    check_nesting(name, slices);
    check_nesting_in_doubles(name, slices);
  }
  EXPECT_EQ(t.flow_starts.size(), t.flow_ends.size());
  for (const auto& [id, start] : t.flow_starts) {
    if (t.flow_ends.count(id) == 0) {
      ADD_FAILURE() << "flow " << id << " has no end";
      continue;
    }
    const TraceFlowEnd& end = t.flow_ends.at(id);
    EXPECT_TRUE(inside(t.slices[start.track], start.ts_ns)) << "flow " << id << " start unbound";
    EXPECT_TRUE(inside(t.slices[end.track], end.ts_ns)) << "flow " << id << " end unbound";
  }
  return t;
}

}  // namespace podsim::testing
