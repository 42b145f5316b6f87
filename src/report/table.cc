#include "report/table.h"

#include <algorithm>
#include <stdexcept>

namespace podsim::report {
namespace {

bool looks_numeric(const std::string& s) {
  if (s.empty()) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
  });
}

}  // namespace

Table::Table(std::vector<std::string> header) : header_(std::move(header)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != header_.size()) {
    throw std::logic_error("Table::add_row: " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(header_.size()) + " columns");
  }
  rows_.push_back(std::move(cells));
}

void Table::render_text(std::ostream& out) const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  auto emit = [&](const std::vector<std::string>& cells, bool is_header) {
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = width[c] - cells[c].size();
      const bool right = !is_header && looks_numeric(cells[c]);
      if (c > 0) {
        out << "  ";
      }
      if (right) {
        out << std::string(pad, ' ') << cells[c];
      } else if (c + 1 < cells.size()) {
        out << cells[c] << std::string(pad, ' ');
      } else {
        out << cells[c];  // no trailing blanks on the last column
      }
    }
    out << '\n';
  };
  emit(header_, true);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) {
    total += width[c] + (c > 0 ? 2 : 0);
  }
  out << std::string(total, '-') << '\n';
  for (const auto& row : rows_) {
    emit(row, false);
  }
}

std::string csv_escape(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) {
    return cell;
  }
  std::string quoted = "\"";
  for (const char ch : cell) {
    if (ch == '"') {
      quoted += '"';
    }
    quoted += ch;
  }
  quoted += '"';
  return quoted;
}

void Table::render_csv(std::ostream& out) const {
  auto emit = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      out << (c > 0 ? "," : "") << csv_escape(cells[c]);
    }
    out << '\n';
  };
  emit(header_);
  for (const auto& row : rows_) {
    emit(row);
  }
}

void render_key_values(std::ostream& out,
                       const std::vector<std::pair<std::string, std::string>>& pairs) {
  size_t width = 0;
  for (const auto& [k, v] : pairs) {
    width = std::max(width, k.size());
  }
  for (const auto& [k, v] : pairs) {
    out << k << std::string(width - k.size() + 2, ' ') << v << '\n';
  }
}

}  // namespace podsim::report
