#include "report/json_writer.h"

#include <cstdio>
#include <stdexcept>

namespace podsim::report {

JsonWriter::JsonWriter(std::ostream& out, int indent) : out_(out), indent_(indent) {}

void JsonWriter::newline() {
  if (indent_ == 0) {
    return;
  }
  out_ << '\n';
  for (size_t i = 0; i < stack_.size() * static_cast<size_t>(indent_); ++i) {
    out_ << ' ';
  }
}

void JsonWriter::before_value() {
  if (done_) {
    throw std::logic_error("JsonWriter: value after the top-level value was finished");
  }
  if (stack_.empty()) {
    return;
  }
  Level& top = stack_.back();
  if (top.is_object) {
    if (!key_pending_) {
      throw std::logic_error("JsonWriter: value inside an object without a key");
    }
    key_pending_ = false;
    return;
  }
  if (!top.empty) {
    out_ << ',';
  }
  top.empty = false;
  newline();
}

JsonWriter& JsonWriter::key(std::string_view k) {
  if (stack_.empty() || !stack_.back().is_object || key_pending_) {
    throw std::logic_error("JsonWriter: key outside an object or twice in a row");
  }
  Level& top = stack_.back();
  if (!top.empty) {
    out_ << ',';
  }
  top.empty = false;
  newline();
  write_string(k);
  out_ << (indent_ == 0 ? ":" : ": ");
  key_pending_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  stack_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  stack_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (stack_.empty() || !stack_.back().is_object || key_pending_) {
    throw std::logic_error("JsonWriter: end_object without a matching begin_object");
  }
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) {
    newline();
  }
  out_ << '}';
  done_ = stack_.empty();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (stack_.empty() || stack_.back().is_object) {
    throw std::logic_error("JsonWriter: end_array without a matching begin_array");
  }
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) {
    newline();
  }
  out_ << ']';
  done_ = stack_.empty();
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  before_value();
  write_string(v);
  return *this;
}

void JsonWriter::write_string(std::string_view v) {
  out_ << '"';
  for (const char c : v) {
    switch (c) {
      case '"':
        out_ << "\\\"";
        break;
      case '\\':
        out_ << "\\\\";
        break;
      case '\n':
        out_ << "\\n";
        break;
      case '\t':
        out_ << "\\t";
        break;
      case '\r':
        out_ << "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out_ << buf;
        } else {
          out_ << c;
        }
    }
  }
  out_ << '"';
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  out_ << format_double(v);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  out_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  before_value();
  out_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ << (v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

void JsonWriter::finish() {
  if (!stack_.empty() || key_pending_) {
    throw std::logic_error("JsonWriter: finish() with unclosed containers");
  }
  out_ << '\n';
}

}  // namespace podsim::report
