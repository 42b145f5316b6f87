#include "report/format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace podsim::report {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") {
    return Format::kTable;
  }
  if (name == "json") {
    return Format::kJson;
  }
  if (name == "csv") {
    return Format::kCsv;
  }
  return std::nullopt;
}

std::string format_double(double v) {
  if (!std::isfinite(v)) {
    return "null";
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string format_fixed(double v, int decimals) {
  // Fixed notation has one digit per power of ten: beyond 1e15 (where a
  // double has no fraction left to show) the shortest form that reads back,
  // so 1e300 is "1e+300", not 301 digits cut at the buffer's end.
  if (!(std::abs(v) < 1e15)) {
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    return format_double(v);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace podsim::report
