// Output formats shared by the subcommands that report results.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace podsim::report {

enum class Format { kTable, kJson, kCsv };

// "table", "json" or "csv"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

// Shortest round-trip decimal form of v ("0.1", "1e+21", "3"), for CSV cells
// and tables, so equal results give byte-identical files; "null" if not finite.
std::string format_double(double v);
// v with a fixed number of decimals, for tables ("12.50").
std::string format_fixed(double v, int decimals);

}  // namespace podsim::report
