// Reading CSV back: what `podsim compare` needs to load result files that
// `podsim run --format csv` (or a spreadsheet) wrote.
//
// The dialect is RFC 4180, as Table::render_csv() writes it: cells separated
// by commas, records ended by LF or CRLF, a cell that holds a comma, a quote
// or a line break enclosed in double quotes, a quote inside such a cell
// doubled. The first record is the header. Blank lines are skipped (so a
// trailing newline, or none, both read the same). Every record must have as
// many cells as the header. Anything else is an error that names the file and
// the line, 1-based, where the bad record starts. Parsing is O(bytes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::report {

// Malformed CSV, or a file that cannot be read. what() reads
// "FILE:LINE: reason" (or "FILE: reason" when no line applies).
class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CsvRecord {
  std::vector<std::string> cells;
  int line = 0;  // 1-based line where the record starts
};

struct CsvDocument {
  std::string source;  // the file name, as the user gave it, for messages
  std::vector<std::string> header;
  std::vector<CsvRecord> rows;

  // Index of the named column, or -1.
  int column(std::string_view name) const;
};

// Parses `text`; `source` names it in error messages. Throws CsvError when
// the text is empty or not UTF-8, a quote is unbalanced or misplaced, a
// header name is empty or repeated, or a record's width differs from the
// header's.
CsvDocument parse_csv(std::string_view text, const std::string& source);

// The largest result CSV read (docs/outputs.md): a sweep of millions of
// points, not an endless device.
inline constexpr uint64_t kMaxCsvFileBytes = uint64_t{1} << 30;

// Reads and parses a file. Throws CsvError naming the file when it cannot be
// read, is larger than `max_bytes` (read no further), or is malformed.
CsvDocument read_csv_file(const std::filesystem::path& path, uint64_t max_bytes = kMaxCsvFileBytes);

}  // namespace podsim::report
