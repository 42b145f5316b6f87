#include "config/internal/override_paths.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <numeric>

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;

// Deeper than any schema podsim has; stops a recursive message type from
// recursing forever through default instances.
constexpr int kMaxDepth = 16;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of the UTF-8 sequence `text` starts with, or 0 when it is not one.
size_t utf8_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  const size_t n = lead < 0x80           ? 1
                   : (lead >> 5) == 0x6  ? 2
                   : (lead >> 4) == 0xE  ? 3
                   : (lead >> 3) == 0x1E ? 4
                                         : 0;
  if (n == 0 || n > text.size())
    return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80)
      return 0;
  }
  return n;
}

// "unexpected 'ï' at character 3": the whole character, never a lone byte of
// one (the message stays valid UTF-8), a control or invalid byte as \xNN, and
// the position counted in characters.
std::string unexpected_at(std::string_view text, size_t i) {
  size_t position = 1;
  for (size_t k = 0; k < i; ++k)
    position += (static_cast<unsigned char>(text[k]) & 0xC0) != 0x80 ? 1 : 0;
  const size_t n = utf8_length(text.substr(i));
  std::string shown;
  const auto byte = static_cast<unsigned char>(text[i]);
  if (n > 1 || (n == 1 && byte >= 0x20 && byte < 0x7F)) {
    shown = std::string(text.substr(i, n));
  } else {
    static constexpr char kHex[] = "0123456789abcdef";
    shown = std::string("\\x") + kHex[byte >> 4] + kHex[byte & 0xF];
  }
  return "unexpected '" + shown + "' at character " + std::to_string(position);
}

void collect(const pb::Message& message, const std::string& prefix, int depth,
             std::vector<std::string>& out) {
  if (depth > kMaxDepth)
    return;
  const pb::Descriptor& d = *message.GetDescriptor();
  const pb::Reflection& r = *message.GetReflection();
  for (int i = 0; i < d.field_count(); ++i) {
    const pb::FieldDescriptor& f = *d.field(i);
    const std::string path = prefix + f.name();
    const bool is_message = f.cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE;
    if (!f.is_repeated()) {
      if (is_message)
        collect(r.GetMessage(message, &f), path + ".", depth + 1, out);
      else
        out.push_back(path);
      continue;
    }
    if (!is_message)
      out.push_back(path);
    for (int k = 0; k < r.FieldSize(message, &f); ++k) {
      const std::string element = path + "[" + std::to_string(k) + "]";
      if (is_message)
        collect(r.GetRepeatedMessage(message, &f, k), element + ".", depth + 1, out);
      else
        out.push_back(element);
    }
  }
}

}  // namespace

std::optional<FieldPath> parse_field_path(std::string_view text, std::string& error) {
  FieldPath path;
  size_t i = 0;
  while (true) {
    const size_t start = i;
    while (i < text.size() && name_char(text[i]))
      ++i;
    if (i == start) {
      error = i < text.size() ? unexpected_at(text, i) : "a field name is missing at the end";
      return std::nullopt;
    }
    const std::string_view name = text.substr(start, i - start);
    int index = -1;
    if (i < text.size() && text[i] == '[') {
      const size_t close = text.find(']', i);
      const std::string_view digits =
          close == std::string_view::npos ? text.substr(i + 1) : text.substr(i + 1, close - i - 1);
      const char* end = digits.data() + digits.size();
      const auto [ptr, ec] = std::from_chars(digits.data(), end, index);
      if (close == std::string_view::npos || digits.empty() || ec != std::errc() || ptr != end ||
          index < 0) {
        error = "expected an index (a whole number >= 0, at most " + std::to_string(INT_MAX) +
                ") in [] after \"" + std::string(name) + "\"";
        return std::nullopt;
      }
      i = close + 1;
    }
    path = path(name, index);
    if (i == text.size())
      return path;
    if (text[i] != '.') {
      error = unexpected_at(text, i);
      return std::nullopt;
    }
    ++i;
  }
}

std::vector<std::string> overridable_paths(const pb::Message& message) {
  std::vector<std::string> out;
  collect(message, "", 0, out);
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // row[i-1][j-1]
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest(std::string_view text, const std::vector<std::string>& candidates,
                                 size_t count) {
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, candidate index)
  scored.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i)
    scored.emplace_back(edit_distance(text, candidates[i]), i);
  const size_t keep = std::min(count, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep),
                    scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < keep; ++i)
    out.push_back(candidates[scored[i].second]);
  return out;
}

}  // namespace podsim::config::internal
