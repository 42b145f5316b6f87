// Turns a sweep's results into its output, one point at a time: CSV (the
// header once, from the first result's kind, then each result's rows) or
// JSON Lines (one podsim.Result per line, Protobuf's JSON printer). Every row
// stands alone: the inputs, the overrides and the status are in it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "podsim/result.pb.h"

namespace podsim::sweep {

enum class RowFormat { kCsv, kJsonLines };

// "csv" or "jsonl"; nullopt otherwise.
std::optional<RowFormat> parse_row_format(std::string_view name);

// The text of one result's rows, in the output's format. For CSV the first
// call also returns the header; a result whose CSV kind differs from the
// first one's is an error (std::invalid_argument naming both kinds: the
// columns of serving and operation-list results differ; use jsonl).
class RowWriter {
 public:
  explicit RowWriter(RowFormat format) : format_(format) {}
  std::string rows(const podsim::Result& result);

 private:
  RowFormat format_;
  std::string kind_;  // the CSV kind of the header written; empty before the first
};

}  // namespace podsim::sweep
