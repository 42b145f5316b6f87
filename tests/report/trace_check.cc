#include "trace_check.h"

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

void read_metadata(const JsonValue& e, ParsedTrace& t) {
  const std::string& name = e["name"].as_string();
  const int64_t pid = static_cast<int64_t>(e["pid"].as_number());
  const int64_t tid = static_cast<int64_t>(e["tid"].as_number());
  if (name == "process_name") {
    t.processes[pid] = e["args"]["name"].as_string();
  } else if (name == "thread_name") {
    EXPECT_TRUE(t.threads.emplace(TrackKey{pid, tid}, e["args"]["name"].as_string()).second)
        << "track named twice: " << pid << "/" << tid;
  } else if (name == "process_sort_index" || name == "thread_sort_index") {
    EXPECT_TRUE(e["args"]["sort_index"].is_number());
  } else if (name == "process_labels") {
    EXPECT_TRUE(e["args"]["labels"].is_string());
  } else {
    ADD_FAILURE() << "unknown metadata event " << name;
  }
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
  t.doc = parse_json(text);
  EXPECT_EQ(t.doc["displayTimeUnit"].as_string(), "ns");
  std::set<int64_t> pids_used;
  std::map<int64_t, std::pair<std::string, std::string>> flow_names;  // id -> (name, cat) of "s"
  for (const JsonValue& e : t.doc["traceEvents"].as_array()) {
    for (const char* key : {"ph", "ts", "pid", "tid"}) {
      EXPECT_TRUE(e.has(key)) << "event without " << key;
    }
    const std::string& ph = e["ph"].as_string();
    const TrackKey track{static_cast<int64_t>(e["pid"].as_number()),
                         static_cast<int64_t>(e["tid"].as_number())};
    const int64_t ts = to_ns(e["ts"].as_number());
    EXPECT_GE(ts, 0);
    if (ph == "M") {
      read_metadata(e, t);
      continue;
    }
    pids_used.insert(track.first);
    if (ph == "X") {
      EXPECT_GE(e["dur"].as_number(), 0.0);
      TraceSlice s{ts, to_ns(e["dur"].as_number()), e["name"].as_string(), e["cat"].as_string(),
                   e.has("args") ? e["args"] : JsonValue()};
      t.slices[track].push_back(std::move(s));
    } else if (ph == "s" || ph == "f") {
      const auto id = static_cast<int64_t>(e["id"].as_number());
      auto& ends = ph == "s" ? t.flow_starts : t.flow_ends;
      EXPECT_TRUE(ends.emplace(id, TraceFlowEnd{track, ts}).second) << "flow " << id << " " << ph;
      const std::pair<std::string, std::string> nc{e["name"].as_string(), e["cat"].as_string()};
      if (ph == "f") {
        EXPECT_EQ(e["bp"].as_string(), "e") << "flow " << id;
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
    check_nesting(t.threads.count(key) ? t.threads.at(key) : "?", slices);
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
