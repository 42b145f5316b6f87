// Output formats shared by the subcommands that report results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace podsim::report {

enum class Format { kTable, kJson, kCsv };

// "table", "json" or "csv"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

}  // namespace podsim::report
