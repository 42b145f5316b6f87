// The steps every loader shares between reading bytes and converting a
// validated message: pick the format, parse into a generated message, collect
// the problems parsing found, then add the validator's issues (with
// line:column for text input) and throw one InputError listing everything.
//
// Internal to src/config (it includes protobuf headers). Generic over the
// message type: topology and workload files share it.
#pragma once

#include <google/protobuf/message.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostics.h"
#include "config/internal/issue_list.h"
#include "config/internal/override_applier.h"
#include "config/internal/proto_text.h"
#include "config/internal/sha256.h"

namespace podsim::config::internal {

enum class InputFormat { kText, kBinary };

// By extension: ".pb" and ".binpb" are binary; ".textproto", ".txtpb",
// ".pbtxt" and everything else are text, the format people write by hand.
InputFormat format_of(const std::filesystem::path& path);

// One input parsed into a message, before validation. Copies are cheap and
// independent (overrides applied to one are not applied to the others).
class ParsedInput {
 public:
  // Parse `contents` into `out` (which should be empty). Throw InputError when
  // the input is not a message at all (a text syntax error, malformed wire
  // format): validating a half-read message would only add noise about fields
  // the parser never reached. Unknown fields do not throw here; they are
  // reported by throw_if_invalid() together with the rule violations.
  static ParsedInput text(std::string_view contents, std::string source,
                          google::protobuf::Message& out);
  static ParsedInput binary(std::string_view contents, std::string source,
                            google::protobuf::Message& out);
  static ParsedInput parse(InputFormat format, std::string_view contents, std::string source,
                           google::protobuf::Message& out);

  const std::string& source() const { return source_; }

  // Applies the overrides rooted at `root` ("topology", "workload") to `out`,
  // the message this input was parsed into (override_applier.h), and
  // remembers what they set for throw_if_invalid(). Throws InputError listing
  // the parse problems and every override that cannot be applied.
  void apply_overrides(const Overrides& overrides, std::string_view root,
                       google::protobuf::Message& out);
  // The same for the overrides of any of `roots` (override_applier.h).
  void apply_overrides(const Overrides& overrides, const OverrideRoots& roots,
                       google::protobuf::Message& out);

  // Throws InputError listing the parse problems and then `issues` (each with
  // the line:column where its field was written, for text input), if there
  // are any; returns otherwise. An issue about a field an override set (or
  // inside a message one created) names that override instead of a
  // line:column: the file does not hold the value that broke the rule.
  void throw_if_invalid(const std::vector<FieldIssue>& issues) const;

  // `issue` as throw_if_invalid() reports it: this input's name, the field
  // path, the reason, and the line:column where the field was written (text
  // input) or the override that set it. For rules checked after loading,
  // against another input (a calibration profile's chip against a pod's).
  Diagnostic diagnostic(const FieldIssue& issue) const;

 private:
  ParsedInput(std::string source, std::vector<Diagnostic> problems,
              std::shared_ptr<const ParsedText> text);

  std::string source_;
  std::vector<Diagnostic> problems_;
  // The location tree, for text input only; shared by copies (a sweep loads
  // one parsed input many times with different overrides).
  std::shared_ptr<const ParsedText> text_;
  std::vector<AppliedOverride> overrides_;
};

// An input parsed once to be loaded many times (config::TopologySource,
// WorkloadSource): its message and how it parsed, or why it could not be
// read or parsed; and the SHA-256 of its bytes.
template <class Message>
struct ParsedSource {
  Message message;
  std::optional<ParsedInput> input;  // nullopt when the input did not parse
  std::optional<InputError> error;   // why
  std::string sha256;

  static ParsedSource parse(InputFormat format, std::string_view contents, std::string source) {
    ParsedSource p;
    try {
      p.input.emplace(ParsedInput::parse(format, contents, std::move(source), p.message));
    } catch (const InputError& e) {
      p.error = e;
    }
    p.sha256 = sha256_hex(contents);
    return p;
  }

  static ParsedSource read(const std::filesystem::path& path) {
    std::string contents;
    try {
      contents = read_file_to_string(path);
    } catch (const InputError& e) {
      ParsedSource p;
      p.error = e;
      return p;
    }
    return parse(format_of(path), contents, path.string());
  }
};

// True when `contents` parses into `out` with no problem at all (no syntax or
// wire error, no unknown field). Rules are not checked. Never throws for bad
// input; used to guess what a file holds.
bool parses_cleanly(InputFormat format, std::string_view contents, google::protobuf::Message& out);

}  // namespace podsim::config::internal
