// sweep::render / encode / decode / RowWriter: a point rendered on a worker
// comes back byte for byte (whatever its text holds), the CSV header is
// written once, mixed kinds are refused, and bytes that are not a frame are
// an error, never a row.
#include "sweep/row_writer.h"

#include <gtest/gtest.h>

#include "report/result_csv.h"
#include "report/result_inputs.h"
#include "report/result_print.h"

namespace podsim::sweep {
namespace {

podsim::Result serving_result(podsim::Result::Status status, const std::string& reason) {
  podsim::Result r = report::new_result();
  r.set_status(status);
  r.set_reason(reason);
  r.mutable_serving()->set_step_time_us(12.5);
  return r;
}

podsim::Result op_list_result() {
  podsim::Result r = report::new_result();
  r.mutable_inputs()->mutable_workload()->set_form("op_list");
  r.mutable_op_list();
  return r;
}

TEST(RenderedPoint, RoundTripsAnyText) {
  RenderedPoint p;
  p.status = podsim::Result::invalid;
  p.reason = "a.textproto:3:7: field: 12:34 is\nnot a number";
  p.kind = "serving";
  p.text = "1:2:3\n\"x,y\"\n:\n";
  p.events = 123456789012345ULL;
  p.header = "a,b:c\n";
  const RenderedPoint q = decode(encode(p));
  EXPECT_EQ(q.header, p.header);
  EXPECT_EQ(q.status, p.status);
  EXPECT_EQ(q.events, p.events);
  EXPECT_EQ(q.reason, p.reason);
  EXPECT_EQ(q.kind, p.kind);
  EXPECT_EQ(q.text, p.text);
  const RenderedPoint empty = decode(encode(RenderedPoint{}));
  EXPECT_EQ(empty.status, podsim::Result::ok);
  EXPECT_TRUE(empty.text.empty());
}

TEST(RenderedPoint, BytesThatAreNotAFrameAreRefused) {
  const std::string good = encode(render(RowFormat::kCsv, serving_result(podsim::Result::ok, "")));
  EXPECT_THROW(decode(""), std::runtime_error);
  EXPECT_THROW(decode(good.substr(0, good.size() - 1)), std::runtime_error);  // truncated
  EXPECT_THROW(decode(good + "x"), std::runtime_error);                       // trailing
  EXPECT_THROW(decode("1:9" + good.substr(3)), std::runtime_error);           // bad status
  EXPECT_THROW(decode("99999999999999999999:0"), std::runtime_error);         // huge length
  EXPECT_THROW(decode("1x:0"), std::runtime_error);
}

TEST(RenderedPoint, CsvIsTheResultsRowsAndKeepsAnInvalidReason) {
  const podsim::Result ok = serving_result(podsim::Result::ok, "");
  const RenderedPoint p = render(RowFormat::kCsv, ok);
  EXPECT_EQ(p.kind, "serving");
  std::string rows;
  for (const auto& row : report::csv_rows(ok))
    rows += report::csv_line(row);
  EXPECT_EQ(p.text, rows);
  EXPECT_TRUE(p.reason.empty());
  const RenderedPoint bad = render(RowFormat::kCsv, serving_result(podsim::Result::invalid, "why"));
  EXPECT_EQ(bad.status, podsim::Result::invalid);
  EXPECT_EQ(bad.reason, "why");
  EXPECT_EQ(render(RowFormat::kJsonLines, ok).text, report::result_to_json_line(ok));
}

TEST(RowWriter, HeaderOnceThenRows) {
  RowWriter w(RowFormat::kCsv);
  const RenderedPoint p = render(RowFormat::kCsv, serving_result(podsim::Result::ok, ""));
  const std::string header = report::csv_line(report::csv_columns("serving"));
  EXPECT_EQ(w.rows(p), header + p.text);
  EXPECT_EQ(w.rows(p), p.text);
  EXPECT_THROW(w.rows(render(RowFormat::kCsv, op_list_result())), std::invalid_argument);
}

TEST(RowWriter, JsonLinesHaveNoHeader) {
  RowWriter w(RowFormat::kJsonLines);
  const RenderedPoint a = render(RowFormat::kJsonLines, serving_result(podsim::Result::ok, ""));
  const RenderedPoint b = render(RowFormat::kJsonLines, op_list_result());
  EXPECT_EQ(w.rows(a), a.text);
  EXPECT_EQ(w.rows(b), b.text);  // kinds may mix in JSON Lines
}

// Rows that are not a podsim.Result's (a serve file's points) bring their
// own header line; a point with another header is refused.
TEST(RowWriter, ARowsOwnHeader) {
  RenderedPoint p;
  p.kind = "serve";
  p.header = "name,requests,overrides\n";
  p.text = "a,3,serve.seed=1\n";
  RowWriter w(RowFormat::kCsv);
  EXPECT_EQ(w.rows(p), "name,requests,overrides\na,3,serve.seed=1\n");
  p.text = "a,4,serve.seed=2\n";
  EXPECT_EQ(w.rows(p), "a,4,serve.seed=2\n");
  p.header = "name,overrides\n";
  EXPECT_THROW(w.rows(p), std::invalid_argument);
}

}  // namespace
}  // namespace podsim::sweep
