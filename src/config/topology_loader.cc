#include "config/topology_loader.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "config/internal/embedded_topology.h"
#include "config/internal/proto_binary.h"
#include "config/internal/proto_text.h"
#include "config/internal/topology_converter.h"
#include "config/internal/topology_validator.h"
#include "podsim/topology.pb.h"

namespace podsim::config {
namespace {

using internal::FieldIssue;

// Text is ".textproto", ".txtpb", ".pbtxt" and anything not listed here.
constexpr std::array<std::string_view, 2> kBinaryExtensions = {".pb", ".binpb"};
constexpr std::string_view kEmbeddedName = "<embedded:v5e-16x16>";

bool has_extension(const std::filesystem::path& path, const auto& extensions) {
  const std::string ext = path.extension().string();
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

// Adds the validator's issues to `diagnostics`; `parsed` (text input only)
// supplies the line:column of each offending field.
void append_issues(const std::vector<FieldIssue>& issues, const std::string& source,
                   const internal::ParsedText* parsed, std::vector<Diagnostic>& diagnostics) {
  for (const FieldIssue& issue : issues) {
    Diagnostic d;
    d.file = source;
    d.field = issue.path.to_string();
    d.message = issue.message;
    if (parsed != nullptr) {
      if (const auto where = parsed->locate(issue.path)) {
        d.line = where->line;
        d.column = where->column;
      }
    }
    diagnostics.push_back(std::move(d));
  }
}

// Validates and converts, or throws with everything found so far plus every
// rule violation.
PodSpec finish(const Topology& message, std::string source, std::vector<Diagnostic> diagnostics,
               const internal::ParsedText* parsed) {
  append_issues(internal::validate_topology(message), source, parsed, diagnostics);
  if (!diagnostics.empty())
    throw InputError(std::move(diagnostics));
  return internal::to_pod_spec(message, std::move(source));
}

}  // namespace

PodSpec parse_topology_text(std::string_view text, std::string source_name) {
  Topology message;
  const internal::ParsedText parsed = internal::parse_text_message(text, source_name, message);
  // After a syntax error the message is incomplete: validating it would only
  // add noise about fields the parser never reached.
  if (!parsed.syntax_ok())
    throw InputError(parsed.errors());
  return finish(message, std::move(source_name), parsed.errors(), &parsed);
}

PodSpec parse_topology_binary(std::string_view bytes, std::string source_name) {
  Topology message;
  internal::ParsedBinary parsed = internal::parse_binary_message(bytes, source_name, message);
  if (!parsed.wire_ok)
    throw InputError(std::move(parsed.errors));
  return finish(message, std::move(source_name), std::move(parsed.errors), nullptr);
}

PodSpec load_topology_file(const std::filesystem::path& path) {
  const std::string contents = read_file_to_string(path);
  if (has_extension(path, kBinaryExtensions))
    return parse_topology_binary(contents, path.string());
  // Everything else is text, the format engineers write by hand.
  return parse_topology_text(contents, path.string());
}

PodSpec default_topology() {
  return parse_topology_text(internal::embedded_default_topology_text(),
                             std::string(kEmbeddedName));
}

std::string default_topology_text() {
  return std::string(internal::embedded_default_topology_text());
}

}  // namespace podsim::config
