// CSV derived from podsim.Result's descriptor, so CSV and JSON cannot
// disagree and every row of one kind has the same columns whatever the run.
//
// The rule (also in proto/podsim/result.proto and docs/outputs.md):
// - a column per scalar leaf, named by its dotted field path from Result
//   ("inputs.topology.chip.hbm_bytes"), in field declaration order, reached
//   through singular sub-messages and repeated fields alike;
// - a repeated field (or a leaf under a repeated message) is one cell with
//   every element's value joined by ';' ("16;16"; empty for no element);
// - fields marked (json_only) are left out; fields marked (csv_kind) are in
//   rows of that kind only ("serving" or "op_list");
// - the field marked (csv_rows) (op_list.operations) gives one row per
//   element, its leaves as the last columns; with no element, one row whose
//   last columns are empty (an invalid operation list still has its row).
// Cells: numbers in the shortest form that reads back to the same double
// (NaN, Infinity and -Infinity as JSON writes them), bools true/false, enums
// by name. O(columns x elements) per row.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "podsim/result.pb.h"

namespace podsim::report {

// The result's CSV kind: "op_list" for an operation-list workload, else
// "serving" (also for an invalid result whose workload form is unknown).
std::string_view csv_kind(const podsim::Result& r);

// The header of a kind, from the descriptor alone.
std::vector<std::string> csv_columns(std::string_view kind);

// The result's rows under csv_columns(csv_kind(r)).
std::vector<std::vector<std::string>> csv_rows(const podsim::Result& r);

// One CSV record (RFC 4180 quoting, table.h's csv_escape), ending in '\n':
// the pieces a streamed output (a sweep) writes a row at a time.
std::string csv_line(const std::vector<std::string>& cells);

// The header and the rows, RFC 4180.
void render_result_csv(const podsim::Result& r, std::ostream& out);

}  // namespace podsim::report
