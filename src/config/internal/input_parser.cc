#include "config/internal/input_parser.h"

#include <algorithm>
#include <array>
#include <utility>

#include "config/internal/proto_binary.h"

namespace podsim::config::internal {
namespace {

constexpr std::array<std::string_view, 2> kBinaryExtensions = {".pb", ".binpb"};

}  // namespace

InputFormat format_of(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  const bool binary =
      std::find(kBinaryExtensions.begin(), kBinaryExtensions.end(), ext) != kBinaryExtensions.end();
  return binary ? InputFormat::kBinary : InputFormat::kText;
}

ParsedInput::ParsedInput(std::string source, std::vector<Diagnostic> problems,
                         std::shared_ptr<const ParsedText> text)
    : source_(std::move(source)), problems_(std::move(problems)), text_(std::move(text)) {}

ParsedInput ParsedInput::text(std::string_view contents, std::string source,
                              google::protobuf::Message& out) {
  ParsedText parsed = parse_text_message(contents, source, out);
  if (!parsed.syntax_ok())
    throw InputError(parsed.errors());
  std::vector<Diagnostic> problems = parsed.errors();
  return ParsedInput(std::move(source), std::move(problems),
                     std::make_shared<const ParsedText>(std::move(parsed)));
}

ParsedInput ParsedInput::binary(std::string_view contents, std::string source,
                                google::protobuf::Message& out) {
  ParsedBinary parsed = parse_binary_message(contents, source, out);
  if (!parsed.wire_ok)
    throw InputError(std::move(parsed.errors));
  return ParsedInput(std::move(source), std::move(parsed.errors), nullptr);
}

ParsedInput ParsedInput::parse(InputFormat format, std::string_view contents, std::string source,
                               google::protobuf::Message& out) {
  return format == InputFormat::kBinary ? binary(contents, std::move(source), out)
                                        : text(contents, std::move(source), out);
}

void ParsedInput::apply_overrides(const Overrides& overrides, std::string_view root,
                                  google::protobuf::Message& out) {
  apply_overrides(overrides, OverrideRoots{std::string(root)}, out);
}

void ParsedInput::apply_overrides(const Overrides& overrides, const OverrideRoots& roots,
                                  google::protobuf::Message& out) {
  try {
    overrides_ = internal::apply_overrides(overrides, roots, source_, out);
  } catch (const InputError& e) {
    std::vector<Diagnostic> diagnostics = problems_;
    diagnostics.insert(diagnostics.end(), e.diagnostics().begin(), e.diagnostics().end());
    throw InputError(std::move(diagnostics));
  }
}

void ParsedInput::throw_if_invalid(const std::vector<FieldIssue>& issues) const {
  if (problems_.empty() && issues.empty())
    return;
  std::vector<Diagnostic> diagnostics = problems_;
  for (const FieldIssue& issue : issues)
    diagnostics.push_back(diagnostic(issue));
  throw InputError(std::move(diagnostics));
}

Diagnostic ParsedInput::diagnostic(const FieldIssue& issue) const {
  Diagnostic d;
  d.file = source_;
  d.field = issue.path.to_string();
  d.message = issue.message;
  const OverrideNote note = override_note(overrides_, issue.path);
  d.message += note.text;
  if (!note.replaces_position && text_ != nullptr) {
    if (const auto where = text_->locate(issue.path)) {
      d.line = where->line;
      d.column = where->column;
    }
  }
  return d;
}

bool parses_cleanly(InputFormat format, std::string_view contents, google::protobuf::Message& out) {
  const std::string unnamed;  // the diagnostics are discarded
  if (format == InputFormat::kBinary) {
    const ParsedBinary parsed = parse_binary_message(contents, unnamed, out);
    return parsed.wire_ok && parsed.errors.empty();
  }
  const ParsedText parsed = parse_text_message(contents, unnamed, out);
  return parsed.syntax_ok() && parsed.errors().empty();
}

}  // namespace podsim::config::internal
