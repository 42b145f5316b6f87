// Where a subcommand's results go: stdout, or a file written whole or not at all.
#pragma once

#include <optional>
#include <string>

#include "cli/context.h"
#include "report/format.h"

namespace podsim::cli {

// Parses a --format value; throws UsageError naming the bad value.
report::Format parse_format_option(const std::string& value);

// Writes `text` to stdout, or atomically to `out_file` when given.
void emit(Context& ctx, const std::optional<std::string>& out_file, const std::string& text);

}  // namespace podsim::cli
