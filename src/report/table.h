// Plain-text tables for the terminal and CSV for spreadsheets.
//
// A Table is a header and rows of already-formatted cells; render_text() pads
// columns (numbers right-aligned, text left-aligned) and render_csv() quotes
// cells per RFC 4180. Formatting numbers is the caller's job, so the same
// figure reads the same in every format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace podsim::report {

class Table {
 public:
  explicit Table(std::vector<std::string> header);

  // Throws std::logic_error if the row's width differs from the header's.
  void add_row(std::vector<std::string> cells);

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }

  void render_text(std::ostream& out) const;
  void render_csv(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// RFC 4180: quote a cell containing a comma, quote or line break; double quotes.
std::string csv_escape(const std::string& cell);

// "key  value" pairs, aligned, for summaries on the terminal.
void render_key_values(std::ostream& out,
                       const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace podsim::report
