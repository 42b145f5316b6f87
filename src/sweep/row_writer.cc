#include "sweep/row_writer.h"

#include <cstdint>
#include <stdexcept>

#include "report/result_csv.h"
#include "report/result_print.h"
#include "sweep/sweep_budget.h"

namespace podsim::sweep {
namespace {

// Fields are framed as "<decimal length>:<bytes>", the status first.
void put(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

// A decimal number of at most 18 digits (no overflow).
uint64_t number(std::string_view digits, const char* what) {
  if (digits.empty() || digits.size() > 18)
    throw std::runtime_error(std::string("sweep point: bad ") + what + " in frame");
  uint64_t n = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9')
      throw std::runtime_error(std::string("sweep point: bad ") + what + " in frame");
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

std::string_view take(std::string_view& in) {
  const size_t colon = in.find(':');
  if (colon == std::string_view::npos)
    throw std::runtime_error("sweep point: bad frame");
  const uint64_t n = number(in.substr(0, colon), "length");
  in.remove_prefix(colon + 1);
  if (n > in.size())
    throw std::runtime_error("sweep point: frame longer than the bytes");
  const std::string_view field = in.substr(0, n);
  in.remove_prefix(n);
  return field;
}

}  // namespace

std::optional<RowFormat> parse_row_format(std::string_view name) {
  if (name == "csv")
    return RowFormat::kCsv;
  if (name == "jsonl")
    return RowFormat::kJsonLines;
  return std::nullopt;
}

RenderedPoint render(RowFormat format, const podsim::Result& result) {
  RenderedPoint p;
  p.status = result.status();
  p.events = events_of(result);
  if (p.status == podsim::Result::invalid)
    p.reason = result.reason();
  if (format == RowFormat::kJsonLines) {
    p.text = report::result_to_json_line(result);
    return p;
  }
  p.kind = report::csv_kind(result);
  for (const auto& row : report::csv_rows(result))
    p.text += report::csv_line(row);
  return p;
}

std::string encode(const RenderedPoint& point) {
  std::string out;
  out.reserve(point.text.size() + point.reason.size() + point.kind.size() + point.header.size() +
              40);
  put(out, std::to_string(static_cast<int>(point.status)));
  put(out, std::to_string(point.events));
  put(out, point.reason);
  put(out, point.kind);
  put(out, point.text);
  put(out, point.header);
  return out;
}

RenderedPoint decode(std::string_view bytes) {
  RenderedPoint p;
  const uint64_t status = number(take(bytes), "status");
  if (!podsim::Result::Status_IsValid(static_cast<int>(status)))
    throw std::runtime_error("sweep point: bad status in frame");
  p.status = static_cast<podsim::Result::Status>(status);
  p.events = number(take(bytes), "events");
  p.reason = take(bytes);
  p.kind = take(bytes);
  p.text = take(bytes);
  p.header = take(bytes);
  if (!bytes.empty())
    throw std::runtime_error("sweep point: bytes after the frame");
  return p;
}

std::string RowWriter::rows(const RenderedPoint& point) {
  if (format_ == RowFormat::kJsonLines)
    return point.text;
  std::string out;
  if (kind_.empty()) {
    kind_ = point.kind;
    header_ = point.header;
    out += point.header.empty() ? report::csv_line(report::csv_columns(point.kind)) : point.header;
  } else if (point.kind != kind_ || point.header != header_) {
    if (!header_.empty() || !point.header.empty())
      throw std::invalid_argument(
          "the points' serve summaries have different CSV columns; sweep them in separate files");
    throw std::invalid_argument(
        "the points mix serving and operation-list workloads, whose CSV columns differ; use "
        "--format jsonl");
  }
  return out + point.text;
}

}  // namespace podsim::sweep
