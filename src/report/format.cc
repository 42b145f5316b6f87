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
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace podsim::report
