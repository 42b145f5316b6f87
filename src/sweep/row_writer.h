// Turns a sweep's results into its output, one point at a time: CSV (the
// header once, from the first result's kind, then each result's rows) or
// JSON Lines (one podsim.Result per line, Protobuf's JSON printer). Every row
// stands alone: the inputs, the overrides and the status are in it.
//
// A point is rendered where it ran (render(), on the worker thread or the MPI
// rank) and handed to the writer as bytes (encode()/decode()): the rows are
// deterministic text, so the output is the same whichever thread or rank
// rendered them, and the writing thread only appends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "podsim/result.pb.h"

namespace podsim::sweep {

enum class RowFormat { kCsv, kJsonLines };

// "csv" or "jsonl"; nullopt otherwise.
std::optional<RowFormat> parse_row_format(std::string_view name);

// One point's output and what the writer counts.
struct RenderedPoint {
  podsim::Result::Status status = podsim::Result::ok;
  uint64_t events = 0;  // simulated (sweep_budget.h): rank 0 sums the sweep's
  std::string reason;   // the result's reason, kept for an invalid point only
  std::string kind;     // the result's CSV kind (report::csv_kind); empty for JSON Lines
  std::string text;     // its rows (CSV, without the header) or its JSON line
  // The CSV header line of rows that are not a podsim.Result's (a serve
  // file's point, fleet/serve_sweep.h, whose kind is "serve"); empty: the
  // columns of `kind` (report::csv_columns).
  std::string header = {};
};

// The point's rows in `format`.
RenderedPoint render(RowFormat format, const podsim::Result& result);

// A rendered point as bytes and back. decode() throws std::runtime_error on
// bytes encode() did not make.
std::string encode(const RenderedPoint& point);
RenderedPoint decode(std::string_view bytes);

// The output text of each point in turn: for CSV the first point also brings
// the header; a point whose CSV kind (or header) differs from the first one's is an
// error (std::invalid_argument: the columns of serving and operation-list
// results differ; use jsonl).
class RowWriter {
 public:
  explicit RowWriter(RowFormat format) : format_(format) {}
  std::string rows(const RenderedPoint& point);

 private:
  RowFormat format_;
  std::string kind_;  // the CSV kind of the header written; empty before the first
  std::string header_;
};

}  // namespace podsim::sweep
