#include "html/table_view.h"

#include <charconv>
#include <cmath>

#include "html/escape.h"
#include "html/report_inputs.h"

namespace podsim::html {

namespace {

const std::string kEmpty;

}  // namespace

const std::string& cell(const report::CsvDocument& doc, const report::CsvRecord& row,
                        std::string_view column) {
  const int c = doc.column(column);
  return c < 0 ? kEmpty : row.cells[static_cast<size_t>(c)];
}

std::string where(const report::CsvDocument& doc, const report::CsvRecord& row) {
  std::string w = doc.source;
  w += ':';
  w += std::to_string(row.line);
  return w;
}

bool parse_number(std::string_view text, double& out) {
  if (text.empty()) {
    return false;
  }
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, out);
  return r.ec == std::errc() && r.ptr == end && std::isfinite(out);
}

double number(const report::CsvDocument& doc, const report::CsvRecord& row,
              std::string_view column) {
  const int c = doc.column(column);
  std::string msg = where(doc, row);
  if (c < 0) {
    msg += ": no column '";
    msg += column;
    msg += '\'';
    throw ReportInputError(msg);
  }
  const std::string& text = row.cells[static_cast<size_t>(c)];
  double v = 0;
  if (!parse_number(text, v)) {
    msg += ": column '";
    msg += column;
    msg += "' is not a finite number: '";
    msg += text;
    msg += '\'';
    throw ReportInputError(msg);
  }
  return v;
}

bool all_numeric(const std::vector<std::string>& values) {
  double v = 0;
  for (const std::string& s : values) {
    if (!parse_number(s, v)) {
      return false;
    }
  }
  return !values.empty();
}

std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<div class=\"scroll\"><table>\n<tr>";
  for (const std::string& h : header) {
    out += "<th>";
    out += escape(h);
    out += "</th>";
  }
  out += "</tr>\n";
  double v = 0;
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& c : row) {
      out += parse_number(c, v) ? "<td class=\"num\">" : "<td>";
      out += escape(c);
      out += "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table></div>\n";
  return out;
}

}  // namespace podsim::html
