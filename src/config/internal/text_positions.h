// Positions in Protobuf text format, and where each element of a repeated
// field was written.
//
// Internal to src/config. protobuf's ParseInfoTree records one location each
// time a field is written, so in `dims: ["x", "y"]` both elements share one
// location (the field name) and the elements written after such a list get
// the wrong indices. ElementLocator recovers one range per element by
// scanning the text of each recorded location.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace podsim::config::internal {

// The text with its line starts. Lines and columns are 0-based as protobuf
// counts them: a tab advances the column to the next multiple of 8.
class TextIndex {
 public:
  explicit TextIndex(std::string_view text);

  std::string_view text() const { return text_; }
  // Line `line` without its newline; "" past the end.
  std::string_view line(int line) const;
  // Byte offset of (line, column), clamped to the text. O(line length).
  size_t offset(int line, int column) const;
  // (line, column) of a byte offset. O(log lines + line length).
  google::protobuf::TextFormat::ParseLocation location(size_t offset) const;

 private:
  std::string text_;
  std::vector<size_t> line_starts_;
};

// Where each element of a repeated field was written, remembered: each
// (message, field) is scanned once, so locating every element of a field of n
// elements costs O(n log n), not O(n^2).
class ElementLocator {
 public:
  using Range = google::protobuf::TextFormat::ParseLocationRange;
  using Tree = google::protobuf::TextFormat::ParseInfoTree;

  explicit ElementLocator(std::string_view text) : text_(text) {}

  const TextIndex& text() const { return text_; }

  // One range per element of the repeated field `field` of the message that
  // `tree` describes, in element order: the recorded range for an element
  // written alone (`dims: "x"`, from its name), the element's own range for
  // one written inside a list (`dims: ["x", "y"]`). `tree` must outlive this
  // object. O(text of the field) the first time, O(log fields) after.
  const std::vector<Range>& ranges(const Tree& tree,
                                   const google::protobuf::FieldDescriptor& field) const;

 private:
  TextIndex text_;
  mutable std::map<std::pair<const Tree*, const google::protobuf::FieldDescriptor*>,
                   std::vector<Range>>
      cache_;
};

}  // namespace podsim::config::internal
