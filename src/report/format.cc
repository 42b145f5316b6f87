#include "report/format.h"

namespace podsim::report {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") {
    return Format::kTable;
  }
  if (name == "json") {
    return Format::kJson;
  }
  if (name == "csv") {
    return Format::kCsv;
  }
  return std::nullopt;
}

}  // namespace podsim::report
