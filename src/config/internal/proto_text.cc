#include "config/internal/proto_text.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <limits>
#include <utility>

namespace podsim::config::internal {
namespace {

namespace pb = google::protobuf;
using ParseInfoTree = pb::TextFormat::ParseInfoTree;

// A problem as protobuf reports it: 0-based line and column.
struct RawError {
  int line = 0;
  int column = 0;
  std::string message;
};

// Keeps every error and warning. The parser is told to skip unknown fields with
// a warning (so that all of them are found, not just the first); podsim treats
// those warnings as errors.
class CollectingErrorCollector : public pb::io::ErrorCollector {
 public:
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    errors.push_back(RawError{line, column, message});
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    errors.push_back(RawError{line, column, message});
  }
  std::vector<RawError> errors;
};

// Protobuf's unknown-field warning reads
// `Message type "podsim.Dimension" has no field named "sise".`; returns the
// quoted text after `marker`, or "" when the message has another form.
std::string quoted_after(const std::string& message, std::string_view marker) {
  const size_t start = message.find(marker);
  if (start == std::string::npos)
    return {};
  const size_t begin = start + marker.size();
  const size_t end = message.find('"', begin);
  return end == std::string::npos ? std::string() : message.substr(begin, end - begin);
}

// Protobuf reports an unknown field at the token after its name; users expect
// the name itself. Returns the 0-based column where `name` starts, if it ends
// just before `column` (whitespace aside), else `column`. Columns count a tab
// as a move to the next multiple of 8, like protobuf's tokenizer.
int name_start_column(std::string_view line, int column, std::string_view name) {
  std::vector<int> col_of_byte;  // column at which each byte starts
  int col = 0;
  for (char c : line) {
    col_of_byte.push_back(col);
    col += c == '\t' ? 8 - col % 8 : 1;
  }
  size_t end = 0;  // byte index of `column`
  while (end < col_of_byte.size() && col_of_byte[end] < column)
    ++end;
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
    --end;
  if (end < name.size() || line.substr(end - name.size(), name.size()) != name)
    return column;
  return col_of_byte[end - name.size()];
}

bool contains(const pb::TextFormat::ParseLocationRange& range, int line, int column) {
  const auto before_or_at = [](int l1, int c1, int l2, int c2) {
    return l1 < l2 || (l1 == l2 && c1 <= c2);
  };
  return range.start.line >= 0 &&
         before_or_at(range.start.line, range.start.column, line, column) &&
         before_or_at(line, column, range.end.line, range.end.column);
}

// Where element `index` of `field` was written (index -1 for a singular
// field); start.line is -1 when it was not written.
pb::TextFormat::ParseLocationRange written_at(const ElementLocator& locator,
                                              const ParseInfoTree& tree,
                                              const pb::FieldDescriptor& field, int index) {
  if (!field.is_repeated())
    return tree.GetLocationRange(&field, -1);
  const auto& ranges = locator.ranges(tree, field);
  return static_cast<size_t>(index) < ranges.size() ? ranges[static_cast<size_t>(index)]
                                                    : pb::TextFormat::ParseLocationRange();
}

// Path of the innermost message field whose text encloses (line, column).
// O(depth x fields written).
FieldPath enclosing_message(const ElementLocator& locator, const pb::Message& root,
                            const ParseInfoTree& root_tree, int line, int column) {
  FieldPath path;
  const pb::Message* message = &root;
  const ParseInfoTree* tree = &root_tree;
  while (tree != nullptr) {
    const pb::Reflection& reflection = *message->GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    reflection.ListFields(*message, &fields);
    const pb::Message* next = nullptr;
    for (const pb::FieldDescriptor* f : fields) {
      if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
        continue;
      const int count = f->is_repeated() ? reflection.FieldSize(*message, f) : 1;
      for (int i = 0; i < count && next == nullptr; ++i) {
        const int index = f->is_repeated() ? i : -1;
        if (!contains(written_at(locator, *tree, *f, index), line, column))
          continue;
        path = path(f->name(), index);
        next = f->is_repeated() ? &reflection.GetRepeatedMessage(*message, f, i)
                                : &reflection.GetMessage(*message, f);
        tree = tree->GetTreeForNested(f, index);
      }
      if (next != nullptr)
        break;
    }
    if (next == nullptr)
      break;
    message = next;
  }
  return path;
}

Diagnostic to_diagnostic(const RawError& raw, const ElementLocator& text, const std::string& source,
                         const pb::Message& message, const ParseInfoTree& tree) {
  Diagnostic d;
  d.file = source;
  d.line = raw.line + 1;
  d.column = raw.column + 1;
  d.message = raw.message;
  const std::string name = quoted_after(raw.message, "has no field named \"");
  if (!name.empty()) {
    const int column = name_start_column(text.text().line(raw.line), raw.column, name);
    d.column = column + 1;
    d.field = enclosing_message(text, message, tree, raw.line, column)(name).to_string();
    d.message = "unknown field: " + quoted_after(raw.message, "Message type \"") +
                " has no field named \"" + name + "\"";
  }
  return d;
}

}  // namespace

ParsedText::ParsedText(const pb::Descriptor& descriptor, ElementLocator text,
                       std::unique_ptr<ParseInfoTree> tree, std::vector<Diagnostic> errors,
                       bool syntax_ok)
    : descriptor_(&descriptor),
      text_(std::move(text)),
      tree_(std::move(tree)),
      errors_(std::move(errors)),
      syntax_ok_(syntax_ok) {}

std::optional<SourcePosition> ParsedText::locate(const FieldPath& path) const {
  std::optional<SourcePosition> found;
  const pb::Descriptor* descriptor = descriptor_;
  const ParseInfoTree* tree = tree_.get();
  for (const FieldPath::Segment& segment : path.segments()) {
    const pb::FieldDescriptor* field =
        descriptor == nullptr ? nullptr : descriptor->FindFieldByName(segment.name);
    if (field == nullptr || tree == nullptr)
      break;
    // A path naming a whole repeated field points at its first element.
    const int index = field->is_repeated() ? std::max(segment.index, 0) : -1;
    const pb::TextFormat::ParseLocation where = written_at(text_, *tree, *field, index).start;
    if (where.line < 0)
      break;
    found = SourcePosition{where.line + 1, where.column + 1};
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE)
      break;
    tree = tree->GetTreeForNested(field, index);
    descriptor = field->message_type();
  }
  return found;
}

namespace {

// Where the text first nests messages deeper than kMaxTextNesting ({ or <,
// outside strings and comments), or nullopt. Protobuf's parser recurses once
// per level, and in skipping an unknown field it does so past its own
// recursion limit: 15,000 nested "a {" overflowed the stack. No podsim
// schema nests more than a few levels.
std::optional<SourcePosition> too_deep(std::string_view text) {
  int depth = 0;
  int line = 1;
  int column = 0;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      comment = false;
      quote = 0;  // strings do not span lines in the text format
      continue;
    }
    if (comment)
      continue;
    if (quote != 0) {
      if (c == '\\')
        ++i, ++column;  // the escaped character
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '#')
      comment = true;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '{' || c == '<') {
      if (++depth > kMaxTextNesting)
        return SourcePosition{line, column};
    } else if (c == '}' || c == '>') {
      depth = std::max(0, depth - 1);
    }
  }
  return std::nullopt;
}

}  // namespace

ParsedText parse_text_message(std::string_view text, const std::string& source_name,
                              pb::Message& out) {
  auto tree = std::make_unique<ParseInfoTree>();
  if (text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    Diagnostic too_large;
    too_large.file = source_name;
    too_large.message = "file too large for the text format parser (more than 2 GiB)";
    return ParsedText(*out.GetDescriptor(), ElementLocator(""), std::move(tree), {too_large},
                      false);
  }
  if (const auto at = too_deep(text)) {
    Diagnostic deep;
    deep.file = source_name;
    deep.line = at->line;
    deep.column = at->column;
    deep.message = "messages nested more than " + std::to_string(kMaxTextNesting) +
                   " levels deep (no podsim input nests more than a few)";
    return ParsedText(*out.GetDescriptor(), ElementLocator(""), std::move(tree), {deep}, false);
  }
  CollectingErrorCollector collector;
  pb::TextFormat::Parser parser;
  parser.SetRecursionLimit(kMaxTextNesting);
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(tree.get());
  parser.AllowUnknownField(true);  // reported through the collector as warnings
  pb::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  const bool syntax_ok = parser.Parse(&input, &out);
  ElementLocator locator(text);
  std::vector<Diagnostic> errors;
  for (const RawError& raw : collector.errors) {
    errors.push_back(to_diagnostic(raw, locator, source_name, out, *tree));
  }
  return ParsedText(*out.GetDescriptor(), std::move(locator), std::move(tree), std::move(errors),
                    syntax_ok);
}

}  // namespace podsim::config::internal
