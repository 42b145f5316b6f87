#include "sweep/row_writer.h"

#include <stdexcept>

#include "report/result_csv.h"
#include "report/result_print.h"

namespace podsim::sweep {

std::optional<RowFormat> parse_row_format(std::string_view name) {
  if (name == "csv")
    return RowFormat::kCsv;
  if (name == "jsonl")
    return RowFormat::kJsonLines;
  return std::nullopt;
}

std::string RowWriter::rows(const podsim::Result& result) {
  if (format_ == RowFormat::kJsonLines)
    return report::result_to_json_line(result);
  const std::string_view kind = report::csv_kind(result);
  std::string out;
  if (kind_.empty()) {
    kind_ = kind;
    out += report::csv_line(report::csv_columns(kind));
  } else if (kind != kind_) {
    throw std::invalid_argument(
        "the points mix serving and operation-list workloads, whose CSV columns differ; use "
        "--format jsonl");
  }
  for (const auto& row : report::csv_rows(result))
    out += report::csv_line(row);
  return out;
}

}  // namespace podsim::sweep
