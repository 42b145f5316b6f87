#include "report/compare_key.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace podsim::report {
namespace {

// Significant digits a spreadsheet keeps (LibreOffice, Excel), and the
// digits key cells are matched to.
constexpr int kSpreadsheetDigits = 15;
constexpr int kKeyDigits = 12;

// `v` rounded to `digits` significant digits, in scientific notation.
std::string scientific(double v, int digits) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, digits - 1);
  return {buf, r.ptr};
}

}  // namespace

std::string canonical_key_cell(std::string_view cell) {
  double v = 0;
  const char* end = cell.data() + cell.size();
  const auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (cell.empty() || ec != std::errc() || ptr != end) {
    return std::string(cell);  // text: matched as written
  }
  if (std::isnan(v)) {
    return "nan";
  }
  if (std::isinf(v)) {
    return v > 0 ? "inf" : "-inf";
  }
  if (v == 0) {
    return "0";  // and -0
  }
  // Round to what a spreadsheet keeps first, so that a value and its
  // spreadsheet copy reach the 12-digit rounding as the same double.
  const std::string kept = scientific(v, kSpreadsheetDigits);
  double rounded = 0;
  std::from_chars(kept.data(), kept.data() + kept.size(), rounded);
  return scientific(rounded, kKeyDigits);
}

bool same_key_cell(std::string_view a, std::string_view b) {
  return a == b || canonical_key_cell(a) == canonical_key_cell(b);
}

}  // namespace podsim::report
