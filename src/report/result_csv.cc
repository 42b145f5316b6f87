#include "report/result_csv.h"

#include <memory>

#include "report/message_csv.h"
#include "report/table.h"

namespace podsim::report {
namespace {

// The layout of a kind (report/message_csv.h). Those of the two kinds
// csv_kind() gives are walked once (a sweep renders thousands of rows; the
// walk reads every field's options) and kept, immutable, for the life of
// the process.
const MessageCsv& layout_of(std::string_view kind, std::unique_ptr<MessageCsv>& scratch) {
  static const MessageCsv serving(podsim::Result::descriptor(), "serving");
  static const MessageCsv op_list(podsim::Result::descriptor(), "op_list");
  if (kind == "serving")
    return serving;
  if (kind == "op_list")
    return op_list;
  scratch = std::make_unique<MessageCsv>(podsim::Result::descriptor(), kind);
  return *scratch;
}

}  // namespace

std::string_view csv_kind(const podsim::Result& r) {
  return r.inputs().workload().form() == "op_list" ? "op_list" : "serving";
}

std::vector<std::string> csv_columns(std::string_view kind) {
  std::unique_ptr<MessageCsv> scratch;
  return layout_of(kind, scratch).columns();
}

std::vector<std::vector<std::string>> csv_rows(const podsim::Result& r) {
  std::unique_ptr<MessageCsv> scratch;
  return layout_of(csv_kind(r), scratch).rows(r);
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0)
      line += ',';
    line += csv_escape(cells[i]);
  }
  line += '\n';
  return line;
}

void render_result_csv(const podsim::Result& r, std::ostream& out) {
  Table t(csv_columns(csv_kind(r)));
  for (auto& row : csv_rows(r)) {
    t.add_row(std::move(row));
  }
  t.render_csv(out);
}

}  // namespace podsim::report
