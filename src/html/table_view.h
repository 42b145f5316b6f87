// Reading the report's tables: cells by column name, numbers checked, and
// HTML tables of cells. Every error names the file and line of the cell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/csv_reader.h"

namespace podsim::html {

// The cell of `row` under `column`, or "" when the table has no such column.
const std::string& cell(const report::CsvDocument& doc, const report::CsvRecord& row,
                        std::string_view column);

// The cell as a finite number. Throws ReportInputError "FILE:LINE: column
// 'C' is not a number: 'V'" (or "... has no column 'C'").
double number(const report::CsvDocument& doc, const report::CsvRecord& row,
              std::string_view column);

// Whether every one of `values` reads as a finite number.
bool all_numeric(const std::vector<std::string>& values);
// `text` as a number, when it is one.
bool parse_number(std::string_view text, double& out);

// An HTML <table> of `rows` under `header`, every cell escaped; numeric
// cells right-aligned.
std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows);

// "FILE:LINE", for messages.
std::string where(const report::CsvDocument& doc, const report::CsvRecord& row);

}  // namespace podsim::html
