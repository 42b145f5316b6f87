#include "report/csv_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace podsim::report {
namespace {

// A single pass over the text, one record at a time; tracks the line number
// so every error can say where it is.
class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // Reads the next non-blank record into `rec`; false at the end of the text.
  bool next(CsvRecord& rec) {
    skip_blank_lines();
    if (pos_ >= text_.size()) {
      return false;
    }
    rec.cells.clear();
    rec.line = line_;
    for (;;) {
      rec.cells.push_back(at('"') ? quoted_cell() : plain_cell());
      if (pos_ >= text_.size()) {
        return true;
      }
      if (at(',')) {
        ++pos_;
        continue;
      }
      end_line();
      return true;
    }
  }

  [[noreturn]] void fail(int line, const std::string& why) const {
    throw CsvError(source_ + ":" + std::to_string(line) + ": " + why);
  }

 private:
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool at_cell_end() const { return pos_ >= text_.size() || at(',') || at('\n') || at('\r'); }

  void skip_blank_lines() {
    while (at('\n') || at('\r')) {
      end_line();
    }
  }

  // Consumes LF or CRLF.
  void end_line() {
    if (at('\r')) {
      ++pos_;
      if (!at('\n')) {
        fail(line_, "carriage return without a line feed");
      }
    }
    ++pos_;
    ++line_;
  }

  std::string plain_cell() {
    std::string cell;
    while (!at_cell_end()) {
      if (at('"')) {
        fail(line_, "quote inside an unquoted cell (quote the whole cell and double the quote)");
      }
      cell += text_[pos_++];
    }
    return cell;
  }

  std::string quoted_cell() {
    const int opened = line_;
    std::string cell;
    ++pos_;  // the opening quote
    for (;;) {
      if (pos_ >= text_.size()) {
        fail(opened, "quoted cell is never closed");
      }
      const char c = text_[pos_++];
      if (c == '"') {
        if (!at('"')) {
          break;
        }
        ++pos_;  // a doubled quote stands for one
      } else if (c == '\n') {
        ++line_;
      }
      cell += c;
    }
    if (!at_cell_end()) {
      fail(line_, "text after a closing quote (a quote inside a quoted cell must be doubled)");
    }
    return cell;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
  int line_ = 1;
};

// The offset of the first byte that is not part of well-formed UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), or
// npos.
size_t first_invalid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80;  // the range of the second byte
    unsigned char hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      lo = b == 0xE0 ? 0xA0 : 0x80;
      hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      lo = b == 0xF0 ? 0x90 : 0x80;
      hi = b == 0xF4 ? 0x8F : 0xBF;
    } else {
      return i;
    }
    if (i + len > text.size()) {
      return i;
    }
    for (size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) {
        return i;
      }
    }
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

int CsvDocument::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

CsvDocument parse_csv(std::string_view text, const std::string& source) {
  Parser parser(text, source);
  // Cells reach JSON (podsim compare --format json) through Protobuf, whose
  // strings are UTF-8: other bytes were printed as an empty string.
  if (const size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    parser.fail(static_cast<int>(line), "not UTF-8 text (byte " + std::to_string(bad + 1) + ")");
  }
  CsvDocument doc;
  doc.source = source;
  CsvRecord record;
  if (!parser.next(record)) {
    throw CsvError(source + ": empty file: no header");
  }
  doc.header = std::move(record.cells);
  std::set<std::string> seen;
  for (const std::string& name : doc.header) {
    if (name.empty()) {
      parser.fail(record.line, "the header has an empty column name");
    }
    if (!seen.insert(name).second) {
      parser.fail(record.line, "the header names column '" + name + "' twice");
    }
  }
  while (parser.next(record)) {
    if (record.cells.size() != doc.header.size()) {
      parser.fail(record.line, "record has " + std::to_string(record.cells.size()) +
                                   " cells, the header has " + std::to_string(doc.header.size()));
    }
    doc.rows.push_back(record);
  }
  return doc;
}

CsvDocument read_csv_file(const std::filesystem::path& path, uint64_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw CsvError(path.string() + ": is a directory, not a CSV file");
  }
  if (std::filesystem::is_regular_file(path, ec)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) {
      throw CsvError(path.string() + ": larger than the limit of " + std::to_string(max_bytes) +
                     " bytes for a result CSV");
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw CsvError(path.string() + ": cannot read: " + std::strerror(errno));
  }
  // In blocks, up to the limit: /dev/zero has no end.
  std::string text;
  std::vector<char> block(1 << 16);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto n = static_cast<size_t>(in.gcount());
    // A CSV is text: a NUL ends the read at once (/dev/zero, a binary file).
    if (const void* nul = std::memchr(block.data(), 0, n)) {
      const size_t at =
          text.size() + static_cast<size_t>(static_cast<const char*>(nul) - block.data());
      throw CsvError(path.string() + ": byte " + std::to_string(at + 1) +
                     " is a NUL: not a text CSV file (binary data, or a device such as /dev/zero)");
    }
    text.append(block.data(), n);
    if (text.size() > max_bytes) {
      throw CsvError(path.string() + ": larger than the limit of " + std::to_string(max_bytes) +
                     " bytes for a result CSV");
    }
  }
  if (in.bad()) {
    throw CsvError(path.string() + ": read error");
  }
  return parse_csv(text, path.string());
}

}  // namespace podsim::report
