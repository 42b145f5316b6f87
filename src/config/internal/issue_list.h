// Rule violations found while validating an input message, and the numeric
// checks every validator needs (finite, positive, within range).
//
// Internal to src/config. Each check records at most one issue and returns
// whether the value passed, so a caller can skip rules that depend on it.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/internal/field_path.h"

namespace podsim::config::internal {

struct FieldIssue {
  FieldPath path;
  std::string message;
};

class IssueList {
 public:
  void add(const FieldPath& path, std::string message);

  // NaN and +-inf are rejected everywhere: no input has a use for them.
  bool finite(const FieldPath& path, double value);
  // finite and > 0.
  bool positive(const FieldPath& path, double value);
  // finite and >= 0.
  bool non_negative(const FieldPath& path, double value);
  // value <= max; `unit` is appended to the limit in the message ("GB/s").
  bool at_most(const FieldPath& path, double value, double max, std::string_view unit);
  // The same for counts and sizes, printed exactly (as a double 2^64 - 1
  // would print as 18446744073709551616).
  bool at_most_count(const FieldPath& path, uint64_t value, uint64_t max, std::string_view unit);
  template <std::unsigned_integral T, std::unsigned_integral U>
  bool at_most(const FieldPath& path, T value, U max, std::string_view unit) {
    return at_most_count(path, value, max, unit);
  }
  // value >= min, for counts and sizes.
  bool at_least(const FieldPath& path, uint64_t value, uint64_t min);

  bool empty() const { return issues_.empty(); }
  const std::vector<FieldIssue>& issues() const { return issues_; }

 private:
  std::vector<FieldIssue> issues_;
};

// Shortest text that reads back as the same double: "0", "-5", "1.5", "nan".
std::string format_number(double value);

// "\"text\"": a value as messages show it.
std::string quoted(std::string_view text);

// "1 chip", "16 chips": for messages.
std::string plural(uint64_t n, std::string_view word);

// "x, y, z": names joined for messages (empty names kept).
std::string join(const std::vector<std::string>& names);

}  // namespace podsim::config::internal
