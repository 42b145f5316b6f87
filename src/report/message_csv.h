// CSV derived from a Protobuf message's descriptor, so the CSV and the JSON
// of one message cannot disagree and every row of one kind has the same
// columns whatever the values: podsim.Result's rule (report/result_csv.h),
// for any report message (podsim.output.ServeReport, CapacityReport).
//
// The rule (docs/outputs.md):
// - a column per scalar leaf, named by its dotted field path from the root
//   ("inputs.topology.chip.hbm_bytes"), in field declaration order, reached
//   through singular sub-messages and repeated fields alike;
// - a repeated field (or a leaf under a repeated message) is one cell with
//   every element's value joined by ';' ("16;16"; empty for no element);
// - fields marked (json_only) are left out; fields marked (csv_kind) are in
//   rows of that kind only;
// - the field marked (csv_rows) gives one row per element, its leaves as the
//   last columns; with no element, one row whose last columns are empty.
// Cells: numbers in the shortest form that reads back to the same double
// (NaN, Infinity and -Infinity as JSON writes them), bools true/false, enums
// by name. Walking the descriptor is O(fields); a row O(columns x elements).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::report {

class MessageCsv {
 public:
  // The layout of `root`'s rows of `kind` ("" for a message without
  // (csv_kind) fields). Immutable once built: one may serve many threads.
  explicit MessageCsv(const google::protobuf::Descriptor* root, std::string_view kind = "");

  // The header, from the descriptor alone.
  std::vector<std::string> columns() const;
  // `m`'s rows (m of the root's type).
  std::vector<std::vector<std::string>> rows(const google::protobuf::Message& m) const;
  // The header and the rows, RFC 4180.
  void render(const google::protobuf::Message& m, std::ostream& out) const;
  std::string render(const google::protobuf::Message& m) const;

 private:
  using Path = std::vector<const google::protobuf::FieldDescriptor*>;
  std::vector<Path> leaves_;
  Path rows_;                     // the (csv_rows) field's path; empty when none
  std::vector<Path> row_leaves_;  // relative to one element of it
};

}  // namespace podsim::report
