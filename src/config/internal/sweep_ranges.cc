#include "config/internal/sweep_ranges.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "config/internal/issue_list.h"

namespace podsim::config::internal {
namespace {

constexpr double kSlack = 1e-9;

// Rounded to 12 significant digits, then the shortest text that reads back.
std::string rounded(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return format_number(std::strtod(buf, nullptr));
}

}  // namespace

uint64_t range_count(const NumericRange& r) {
  const double steps =
      r.geometric ? std::log(r.stop / r.start) / std::log(r.step) : (r.stop - r.start) / r.step;
  const double whole = std::floor(steps + kSlack);
  if (!(whole < static_cast<double>(std::numeric_limits<uint64_t>::max() - 1)))
    return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(whole) + 1;
}

std::string range_value(const NumericRange& r, uint64_t i) {
  const double k = static_cast<double>(i);
  return rounded(r.geometric ? r.start * std::pow(r.step, k) : r.start + k * r.step);
}

}  // namespace podsim::config::internal
