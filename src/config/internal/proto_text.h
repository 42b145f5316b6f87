// Protobuf text format with diagnostics users can act on.
//
// Internal to src/config (it includes protobuf headers). Wraps
// TextFormat::Parser so that syntax errors and unknown fields become
// Diagnostics with 1-based line:column, unknown fields also with their field
// path, and keeps the parser's location tree so that a validator's FieldPath
// can be mapped back to where the field was written. Generic over the message
// type: topology and workload files share it.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"
#include "config/internal/field_path.h"
#include "config/internal/text_positions.h"

namespace podsim::config::internal {

// Messages nest at most this deep in a text input (docs/inputs.md).
inline constexpr int kMaxTextNesting = 100;

struct SourcePosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based (a tab advances to the next multiple of 8, as protobuf counts)
};

class ParsedText {
 public:
  ParsedText(const google::protobuf::Descriptor& descriptor, ElementLocator text,
             std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree,
             std::vector<Diagnostic> errors, bool syntax_ok);

  // False when the text is not well-formed; the message is then incomplete and
  // must not be validated (errors() says why).
  bool syntax_ok() const { return syntax_ok_; }
  // Syntax errors (parsing stops at the first) and every unknown field.
  const std::vector<Diagnostic>& errors() const { return errors_; }

  // Where `path` was written. When the field itself is absent (left at its
  // default), the position of its nearest enclosing field that is present;
  // nullopt when not even the first segment was written. An element of a list
  // (`dims: ["x", "y"]`) is located at its value. O(depth x log fields), plus
  // once per repeated field on the path, O(text of that field).
  std::optional<SourcePosition> locate(const FieldPath& path) const;

 private:
  const google::protobuf::Descriptor* descriptor_;
  // A copy of the input, to locate list elements. Its cache keys point into
  // *tree_, which stays put when a ParsedText is moved.
  ElementLocator text_;
  std::unique_ptr<google::protobuf::TextFormat::ParseInfoTree> tree_;
  std::vector<Diagnostic> errors_;
  bool syntax_ok_;
};

// Parses `text` into `out` (which should be empty). Never throws for bad input:
// problems are returned in ParsedText::errors(), tagged with `source_name`.
ParsedText parse_text_message(std::string_view text, const std::string& source_name,
                              google::protobuf::Message& out);

}  // namespace podsim::config::internal
