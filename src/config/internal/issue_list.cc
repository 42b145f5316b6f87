#include "config/internal/issue_list.h"

#include <array>
#include <charconv>
#include <cmath>

namespace podsim::config::internal {

void IssueList::add(const FieldPath& path, std::string message) {
  issues_.push_back(FieldIssue{path, std::move(message)});
}

bool IssueList::finite(const FieldPath& path, double value) {
  if (std::isfinite(value))
    return true;
  add(path, "must be a finite number, got " + format_number(value));
  return false;
}

bool IssueList::positive(const FieldPath& path, double value) {
  if (!finite(path, value))
    return false;
  if (value > 0)
    return true;
  add(path, "must be > 0, got " + format_number(value));
  return false;
}

bool IssueList::non_negative(const FieldPath& path, double value) {
  if (!finite(path, value))
    return false;
  if (value >= 0)
    return true;
  add(path, "must be >= 0, got " + format_number(value));
  return false;
}

bool IssueList::at_most(const FieldPath& path, double value, double max, std::string_view unit) {
  if (value <= max)
    return true;
  std::string message = "must be <= " + format_number(max);
  if (!unit.empty())
    message += ' ' + std::string(unit);
  add(path, message + ", got " + format_number(value));
  return false;
}

bool IssueList::at_most_count(const FieldPath& path, uint64_t value, uint64_t max,
                              std::string_view unit) {
  if (value <= max)
    return true;
  std::string message = "must be <= " + std::to_string(max);
  if (!unit.empty())
    message += ' ' + std::string(unit);
  add(path, message + ", got " + std::to_string(value));
  return false;
}

bool IssueList::at_least(const FieldPath& path, uint64_t value, uint64_t min) {
  if (value >= min)
    return true;
  add(path, "must be >= " + std::to_string(min) + ", got " + std::to_string(value));
  return false;
}

// Built by appending: GCC 12 warns falsely (-Wrestrict) on "\"" + string.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  out += text;
  out += '"';
  return out;
}

std::string format_number(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  std::array<char, 32> buf{};  // either form below needs at most 24
  // Whole numbers below 1e15 in plain digits ("1000000000", not "1e+09"),
  // everything else in the shortest form that reads back exactly.
  const bool whole = std::abs(value) < 1e15 && value == std::trunc(value);
  const auto result =
      whole ? std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed, 0)
            : std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), result.ptr);
}

std::string plural(uint64_t n, std::string_view word) {
  return std::to_string(n) + ' ' + std::string(word) + (n == 1 ? "" : "s");
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty())
      out += ", ";
    out += n;
  }
  return out;
}

}  // namespace podsim::config::internal
