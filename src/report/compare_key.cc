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

// Whether from_chars could read `cell` as a number: it starts as a number,
// "inf" or "nan" does. A cheap test that spares most text cells the parse.
bool may_be_number(std::string_view cell) {
  if (cell.empty()) {
    return false;
  }
  const char c = cell.front();
  return (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'i' || c == 'I' || c == 'n' ||
         c == 'N';
}

}  // namespace

void append_canonical_key_cell(std::string_view cell, std::string& out) {
  double v = 0;
  const char* end = cell.data() + cell.size();
  if (!may_be_number(cell)) {
    out += cell;  // text: matched as written
    return;
  }
  const auto [ptr, ec] = std::from_chars(cell.data(), end, v);
  if (ec != std::errc() || ptr != end) {
    out += cell;
    return;
  }
  if (std::isnan(v)) {
    out += "nan";
  } else if (std::isinf(v)) {
    out += v > 0 ? "inf" : "-inf";
  } else if (v == 0) {
    out += '0';  // and -0
  } else {
    // Round to what a spreadsheet keeps first, so that a value and its
    // spreadsheet copy reach the 12-digit rounding as the same double.
    char buf[64];
    const auto kept = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific,
                                    kSpreadsheetDigits - 1);
    double rounded = 0;
    std::from_chars(buf, kept.ptr, rounded);
    const auto key = std::to_chars(buf, buf + sizeof buf, rounded, std::chars_format::scientific,
                                   kKeyDigits - 1);
    out.append(buf, key.ptr);
  }
}

std::string canonical_key_cell(std::string_view cell) {
  std::string out;
  append_canonical_key_cell(cell, out);
  return out;
}

bool same_key_cell(std::string_view a, std::string_view b) {
  return a == b || canonical_key_cell(a) == canonical_key_cell(b);
}

}  // namespace podsim::report
