#include "config/internal/text_positions.h"

#include <algorithm>
#include <optional>

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;
using ParseLocation = pb::TextFormat::ParseLocation;
using ParseLocationRange = pb::TextFormat::ParseLocationRange;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Scans the text of one recorded field location, from its name to the end of
// its value(s).
class FieldScanner {
 public:
  FieldScanner(std::string_view text, size_t begin, size_t end)
      : text_(text), p_(begin), end_(std::min(end, text.size())) {}

  // The [begin, end) byte ranges of the elements when the value is a list,
  // nullopt when it is a single value.
  std::optional<std::vector<std::pair<size_t, size_t>>> list_elements() {
    while (p_ < end_ && is_name_char(text_[p_]))
      ++p_;
    skip_space();
    if (p_ < end_ && text_[p_] == ':') {
      ++p_;
      skip_space();
    }
    if (p_ >= end_ || text_[p_] != '[')
      return std::nullopt;
    ++p_;
    std::vector<std::pair<size_t, size_t>> elements;
    for (;;) {
      skip_space();
      if (p_ >= end_ || text_[p_] == ']')
        break;
      const size_t begin = p_;
      elements.emplace_back(begin, skip_value());
      if (p_ < end_ && text_[p_] == ',')
        ++p_;
    }
    return elements;
  }

 private:
  // Whitespace and "#" comments.
  void skip_space() {
    while (p_ < end_) {
      if (is_space(text_[p_])) {
        ++p_;
      } else if (text_[p_] == '#') {
        while (p_ < end_ && text_[p_] != '\n')
          ++p_;
      } else {
        break;
      }
    }
  }

  // Moves to the ',' or ']' that ends the value (outside strings, comments and
  // nested brackets); returns the end of its last token.
  size_t skip_value() {
    int depth = 0;
    size_t last = p_;
    while (p_ < end_) {
      const char c = text_[p_];
      if (c == '"' || c == '\'') {
        skip_string(c);
        last = p_;
      } else if (c == '#' || is_space(c)) {
        skip_space();
      } else if ((c == ',' || c == ']' || c == '}' || c == '>') && depth == 0) {
        break;
      } else {
        if (c == '{' || c == '[' || c == '<')
          ++depth;
        if (c == '}' || c == ']' || c == '>')
          --depth;
        last = ++p_;
      }
    }
    return last;
  }

  void skip_string(char quote) {
    for (++p_; p_ < end_ && text_[p_] != quote && text_[p_] != '\n'; ++p_) {
      if (text_[p_] == '\\')
        ++p_;
    }
    if (p_ < end_)
      ++p_;
  }

  std::string_view text_;
  size_t p_;
  size_t end_;
};

}  // namespace

TextIndex::TextIndex(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n')
      line_starts_.push_back(i + 1);
  }
}

std::string_view TextIndex::line(int line) const {
  if (line < 0 || static_cast<size_t>(line) >= line_starts_.size())
    return {};
  const size_t begin = line_starts_[static_cast<size_t>(line)];
  const size_t end = std::min(text_.find('\n', begin), text_.size());
  return std::string_view(text_).substr(begin, end - begin);
}

size_t TextIndex::offset(int line, int column) const {
  if (line < 0)
    return 0;
  if (static_cast<size_t>(line) >= line_starts_.size())
    return text_.size();
  const std::string_view text = this->line(line);
  int col = 0;
  size_t byte = 0;
  while (byte < text.size() && col < column) {
    col += text[byte] == '\t' ? 8 - col % 8 : 1;
    ++byte;
  }
  return line_starts_[static_cast<size_t>(line)] + byte;
}

pb::TextFormat::ParseLocation TextIndex::location(size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto after = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<int>(after - line_starts_.begin()) - 1;
  int column = 0;
  for (size_t i = line_starts_[static_cast<size_t>(line)]; i < offset; ++i)
    column += text_[i] == '\t' ? 8 - column % 8 : 1;
  return ParseLocation(line, column);
}

const std::vector<ParseLocationRange>& ElementLocator::ranges(
    const Tree& tree, const pb::FieldDescriptor& field) const {
  const auto [it, inserted] = cache_.try_emplace({&tree, &field});
  std::vector<ParseLocationRange>& ranges = it->second;
  if (!inserted)
    return ranges;
  for (int i = 0;; ++i) {
    const ParseLocationRange recorded = tree.GetLocationRange(&field, i);
    if (recorded.start.line < 0)
      break;
    FieldScanner scanner(text_.text(), text_.offset(recorded.start.line, recorded.start.column),
                         text_.offset(recorded.end.line, recorded.end.column));
    const auto elements = scanner.list_elements();
    if (!elements) {
      ranges.push_back(recorded);
      continue;
    }
    for (const auto& [begin, end] : *elements)
      ranges.emplace_back(text_.location(begin), text_.location(end));
  }
  return ranges;
}

}  // namespace podsim::config::internal
