// podsim.Result in every format: JSON that reads back into the same message,
// CSV whose header is the descriptor's leaves and whose cells are the JSON's
// values, and byte-identical output for equal inputs.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <charconv>
#include <set>
#include <sstream>

#include "report/csv_reader.h"
#include "report/result_csv.h"
#include "report/result_print.h"
#include "result_support.h"

namespace podsim::study {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;
using testing::analytical;
using testing::load;

podsim::Result from_json(const std::string& json) {
  podsim::Result r;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &r);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return r;
}

podsim::Result serving_result(const std::string& topology, const std::string& workload) {
  const auto in = load(topology, workload);
  return evaluate(in.pod, in.workload, analytical());
}

podsim::Result op_list_result() {
  const auto in = load("v5e-4x4.textproto", "matmul-allreduce-v5e-4x4.textproto");
  return evaluate(in.pod, in.workload, analytical());
}

report::CsvDocument csv_of(const podsim::Result& r) {
  std::ostringstream out;
  report::render_result_csv(r, out);
  return report::parse_csv(out.str(), "result.csv");
}

TEST(ResultFormat, JsonReadsBackIntoTheSameMessage) {
  for (const podsim::Result& r :
       {serving_result("v5e-4x4.textproto", "mixtral-8x7b-decode-v5e.textproto"),
        op_list_result()}) {
    const std::string json = report::result_to_json(r);
    EXPECT_TRUE(MessageDifferencer::Equals(from_json(json), r));
    EXPECT_TRUE(MessageDifferencer::Equals(report::result_from_json(json), r));
    // Binary and text formats too.
    podsim::Result bin;
    ASSERT_TRUE(bin.ParseFromString(report::result_to_binpb(r)));
    EXPECT_TRUE(MessageDifferencer::Equals(bin, r));
    podsim::Result text;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(report::result_to_textproto(r), &text));
    EXPECT_TRUE(MessageDifferencer::Equals(text, r));
  }
}

TEST(ResultFormat, JsonPrintsEveryFieldEvenAtItsDefault) {
  const std::string json = report::result_to_json(op_list_result());
  // Defaults the printer would skip without always_print_primitive_fields.
  for (const char* key : {"\"reason\": \"\"", "\"status\": \"ok\"", "\"failed_links\": 0",
                          "\"twists\": []", "\"overrides\": []", "\"allow_oom\": false"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  EXPECT_EQ(json.back(), '\n');
}

TEST(ResultFormat, EqualInputsGiveByteIdenticalOutput) {
  const podsim::Result a = op_list_result();
  const podsim::Result b = op_list_result();
  EXPECT_EQ(report::result_to_json(a), report::result_to_json(b));
  EXPECT_EQ(report::result_to_textproto(a), report::result_to_textproto(b));
  EXPECT_EQ(report::result_to_binpb(a), report::result_to_binpb(b));
  std::ostringstream ca;
  std::ostringstream cb;
  report::render_result_csv(a, ca);
  report::render_result_csv(b, cb);
  EXPECT_EQ(ca.str(), cb.str());
}

// The leaves of a kind, walked here independently of result_csv.cc.
void leaves(const Descriptor* d, const std::string& prefix, const std::string& kind,
            std::vector<std::string>& out, std::vector<std::string>& rows) {
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->options().GetExtension(podsim::json_only)) {
      continue;
    }
    const std::string& only = f->options().GetExtension(podsim::csv_kind);
    if (!only.empty() && only != kind) {
      continue;
    }
    const std::string name = prefix + f->name();
    if (f->options().GetExtension(podsim::csv_rows)) {
      leaves(f->message_type(), name + ".", kind, rows, rows);
    } else if (f->message_type() != nullptr) {
      leaves(f->message_type(), name + ".", kind, out, rows);
    } else {
      out.push_back(name);
    }
  }
}

std::vector<std::string> descriptor_columns(const std::string& kind) {
  std::vector<std::string> out;
  std::vector<std::string> rows;
  leaves(podsim::Result::descriptor(), "", kind, out, rows);
  out.insert(out.end(), rows.begin(), rows.end());
  return out;
}

TEST(ResultFormat, CsvHeaderIsTheDescriptorsLeavesWhateverTheRun) {
  for (const std::string kind : {"serving", "op_list"}) {
    EXPECT_EQ(report::csv_columns(kind), descriptor_columns(kind)) << kind;
  }
  // Two serving runs on different pods and models, and an oom result: one header.
  const auto a = csv_of(serving_result("v5e-4x4.textproto", "llama3-8b-decode-v5e.textproto"));
  const auto b = csv_of(serving_result("v5p-4x4x4.textproto", "deepseek-v3-prefill-v5p.textproto"));
  EXPECT_EQ(a.header, b.header);
  EXPECT_EQ(a.header, report::csv_columns("serving"));
  ASSERT_EQ(a.rows.size(), 1U);
  const auto ops = csv_of(op_list_result());
  EXPECT_EQ(ops.header, report::csv_columns("op_list"));
  EXPECT_EQ(ops.rows.size(), 3U);  // one per operation: proj, sum, next
  // Per-dimension values: one cell, joined by ';'.
  const int dims = a.column("inputs.topology.dims.size");
  ASSERT_GE(dims, 0);
  EXPECT_EQ(a.rows[0].cells[static_cast<size_t>(dims)], "4;4");
  const int b_dims = b.column("inputs.topology.dims.size");
  EXPECT_EQ(b.rows[0].cells[static_cast<size_t>(b_dims)], "4;4;4");
  // Lists that grow with the run are JSON only.
  EXPECT_EQ(a.column("serving.by_layer.key"), -1);
  EXPECT_EQ(a.column("link_stats.window_us"), -1);
}

// Every value of the leaf at dotted `path` under `m`, as JSON would hold it.
void values_at(const Message& m, const std::vector<std::string>& path, size_t at,
               std::vector<std::string>& out) {
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(path[at]);
  EXPECT_NE(f, nullptr) << path[at];
  if (f == nullptr) {
    return;
  }
  const auto* r = m.GetReflection();
  const bool last = at + 1 == path.size();
  std::string text;
  const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
  for (int i = 0; i < n; ++i) {
    if (!last) {
      values_at(f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f), path,
                at + 1, out);
      continue;
    }
    std::string v;
    google::protobuf::TextFormat::PrintFieldValueToString(m, f, f->is_repeated() ? i : -1, &v);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      v = f->is_repeated() ? r->GetRepeatedString(m, f, i) : r->GetString(m, f);
    }
    out.push_back(v);
  }
}

bool same_value(const std::string& csv, const std::string& proto) {
  if (csv == proto) {
    return true;
  }
  double a = 0;
  double b = 0;
  const auto ra = std::from_chars(csv.data(), csv.data() + csv.size(), a);
  const auto rb = std::from_chars(proto.data(), proto.data() + proto.size(), b);
  return ra.ec == std::errc() && rb.ec == std::errc() && a == b;
}

void expect_cells_equal_json(const podsim::Result& r) {
  const podsim::Result parsed = from_json(report::result_to_json(r));
  const auto doc = csv_of(r);
  for (size_t row = 0; row < doc.rows.size(); ++row) {
    for (size_t c = 0; c < doc.header.size(); ++c) {
      std::vector<std::string> path;
      std::stringstream ss(doc.header[c]);
      for (std::string part; std::getline(ss, part, '.');) {
        path.push_back(part);
      }
      std::vector<std::string> values;
      if (path[0] == "op_list" && path.size() > 2 && path[1] == "operations") {
        const podsim::OperationResult& op = parsed.op_list().operations(static_cast<int>(row));
        values_at(op, {path.begin() + 2, path.end()}, 0, values);
      } else {
        values_at(parsed, path, 0, values);
      }
      const std::string& cell = doc.rows[row].cells[c];
      if (values.empty()) {
        EXPECT_EQ(cell, "") << doc.header[c];
        continue;
      }
      std::vector<std::string> cells(1);
      for (const char ch : cell) {
        if (ch == ';') {
          cells.emplace_back();
        } else {
          cells.back() += ch;
        }
      }
      ASSERT_EQ(cells.size(), values.size()) << doc.header[c];
      for (size_t i = 0; i < cells.size(); ++i) {
        EXPECT_TRUE(same_value(cells[i], values[i]))
            << doc.header[c] << ": csv " << cells[i] << ", json " << values[i];
      }
    }
  }
}

TEST(ResultFormat, CsvCellsAreTheJsonValues) {
  expect_cells_equal_json(serving_result("v5e-4x4.textproto", "mixtral-8x7b-decode-v5e.textproto"));
  expect_cells_equal_json(op_list_result());
}

TEST(ResultFormat, FormatNames) {
  EXPECT_EQ(report::parse_result_format("binpb"), report::ResultFormat::kBinpb);
  EXPECT_EQ(report::parse_result_format("textproto"), report::ResultFormat::kTextproto);
  EXPECT_EQ(report::parse_result_format("yaml"), std::nullopt);
}

}  // namespace
}  // namespace podsim::study
