// Where a subcommand's results go: stdout, or a file written whole or not at all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"
#include "report/format.h"

namespace podsim::cli {

// Parses a --format value; throws UsageError naming the bad value.
report::Format parse_format_option(const std::string& value);

// A file a command reads or writes, by the option that names it.
struct NamedFile {
  std::string option;  // "--out", "--workload", "a file to compare"
  std::string path;
};

// Throws UsageError when an output would replace an input (the same path,
// or the same file under another name) or two outputs name one file, so
// nothing is lost: `--out` naming the workload overwrote it, and `--out F
// --trace F` kept only one of the two. Empty paths are skipped.
void refuse_clobbering(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs);

// Writes `text` to stdout, or atomically to `out_file` when given.
void emit(Context& ctx, const std::optional<std::string>& out_file, const std::string& text);

}  // namespace podsim::cli
