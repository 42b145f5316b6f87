// A small streaming JSON writer with deterministic output.
//
// Numbers are written in the shortest form that reads back to the same double
// (std::to_chars), so the same results give byte-identical files on every run
// and machine. Non-finite doubles become null (JSON has no NaN). The writer
// tracks nesting so callers cannot forget a comma; misuse is a logic_error.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/format.h"  // format_double, format_fixed

namespace podsim::report {

class JsonWriter {
 public:
  // indent = 0 writes one line; otherwise pretty-prints with that many spaces.
  explicit JsonWriter(std::ostream& out, int indent = 2);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // The key of the next value inside an object.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();

  // key(k).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  // Call once at the end: checks every container was closed, adds a newline.
  void finish();

 private:
  void before_value();
  void write_string(std::string_view s);
  void newline();

  struct Level {
    bool is_object;
    bool empty = true;
  };
  std::ostream& out_;
  int indent_;
  std::vector<Level> stack_;
  bool key_pending_ = false;
  bool done_ = false;
};

}  // namespace podsim::report
