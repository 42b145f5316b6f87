// Workload input formats: text positions (lists included), unknown fields in
// text and binary, equality of the two, load_workload_file(), and
// sniff_file_kind().
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::TempDir;
using testing::test_pod;
using testing::valid_topology;
using testing::valid_workload;
using testing::workload_errors;

auto At(int line, int column) {
  return AllOf(Field("line", &Diagnostic::line, line),
               Field("column", &Diagnostic::column, column));
}

std::string text_of(const google::protobuf::Message& m) {
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(m, &text));
  return text;
}

std::vector<Diagnostic> binary_errors(const std::string& bytes) {
  try {
    parse_workload_binary(bytes, "w.pb", test_pod());
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

TEST(WorkloadTextTest, SyntaxErrorStopsWithLineAndColumn) {
  const auto errors = workload_errors("name: \"w\"\nmesh { axes { name \"a\" } }\n");
  ASSERT_EQ(errors.size(), 1u);  // nothing is validated after a syntax error
  EXPECT_THAT(errors[0], At(2, 20));
  EXPECT_THAT(errors[0].message, HasSubstr("Expected \":\""));
}

TEST(WorkloadTextTest, UnknownFieldsHavePathLineAndColumn) {
  std::string text = text_of(valid_workload());
  text += "operations { name: \"x\" colective { kind: ALL_REDUCE } }\n";
  const auto errors = workload_errors(text);
  ASSERT_GE(errors.size(), 2u);
  // The misspelt field comes first, then what its absence breaks.
  const int last_line = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_THAT(
      errors[0],
      AllOf(IsDiagnostic("operations[2].colective",
                         "unknown field: podsim.Operation has no field named \"colective\""),
            At(last_line, 24)));
  EXPECT_THAT(errors[1], IsDiagnostic("operations[2]", "operation has no collective"));
}

TEST(WorkloadTextTest, ElementsAfterAListKeepTheirIndex) {
  // protobuf records one location for the whole list; "c" is after[2], on
  // line 4, not where after[1] ("b", inside the list) is.
  const std::string text =
      "name: \"w\" mesh { axes { name: \"a\" dims: \"x\" } }\n"                             // 1
      "operations { name: \"o\" collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n"  // 2
      "operations { name: \"p\" after: [\"o\", \"b\"]\n"                                    // 3
      "  after: \"c\" collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n";           // 4
  EXPECT_THAT(workload_errors(text),
              ElementsAre(AllOf(IsDiagnostic("operations[1].after[1]", "\"b\""), At(3, 37)),
                          AllOf(IsDiagnostic("operations[1].after[2]", "\"c\""), At(4, 3))));
}

TEST(WorkloadTextTest, ListElementsSkipStringsAndComments) {
  // Commas and brackets inside strings and comments do not split elements.
  const std::string text =
      "name: \"w\" mesh { axes { name: \"a\" dims: \"x\" } }\n"                             // 1
      "operations { name: \"o\" collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n"  // 2
      "operations { name: \"p\" after: [ \"a, ]b\",  # c, ]\n"                              // 3
      "  'd\\', e' ] collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n";            // 4
  EXPECT_THAT(workload_errors(text),
              ElementsAre(AllOf(IsDiagnostic("operations[1].after[0]", "\"a, ]b\""), At(3, 33)),
                          AllOf(IsDiagnostic("operations[1].after[1]", "\"d', e\""), At(4, 3))));
}

TEST(WorkloadTextTest, MessagesWrittenAsAListAreLocated) {
  const std::string text =
      "name: \"w\"\n"                                     // 1
      "mesh { axes: [ { name: \"a\" dims: \"x\" },\n"     // 2
      "               { name: \"b\" dims: \"x\" } ] }\n"  // 3
      "operations { name: \"o\" collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" } }\n";
  EXPECT_THAT(
      workload_errors(text),
      ElementsAre(AllOf(IsDiagnostic("mesh.axes[1].dims[0]", "already used by mesh.axes[0]"),
                        At(3, 28))));  // a field written alone points at its name
}

// A workload that sets every field, for text and binary to agree on.
podsim::Workload full_workload() {
  auto w = valid_workload();
  w.set_description("all fields");
  auto& op = *w.add_operations();
  op.set_name("bcast");
  op.add_after("ar");
  op.add_after("ag");
  op.set_repeat(3);
  auto& c = *op.mutable_collective();
  c.set_kind(podsim::BROADCAST);
  c.set_bytes(12);
  c.add_axes("data");
  c.set_dtype(podsim::INT4);
  c.set_algorithm(podsim::UNIDIRECTIONAL_RING);
  c.set_root(3);
  return w;
}

TEST(WorkloadBinaryTest, TextAndBinaryGiveEqualSpecs) {
  const auto w = full_workload();
  WorkloadSpec from_text = parse_workload_text(text_of(w), "w.textproto", test_pod());
  const WorkloadSpec from_binary = parse_workload_binary(w.SerializeAsString(), "w.pb", test_pod());
  EXPECT_EQ(from_text.source_file, "w.textproto");
  EXPECT_EQ(from_binary.source_file, "w.pb");
  from_text.source_file = from_binary.source_file;
  EXPECT_NE(from_text.source_sha256, from_binary.source_sha256);  // of different bytes
  from_text.source_sha256 = from_binary.source_sha256;
  EXPECT_EQ(from_text, from_binary);
  // And the fields really are set (equality of two empty specs proves nothing).
  EXPECT_EQ(from_binary.description, "all fields");
  ASSERT_EQ(from_binary.operations.size(), 3u);
  EXPECT_EQ(from_binary.operations[2].after, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(from_binary.operations[2].repeat, 3u);
  const auto& c = std::get<CollectiveSpec>(from_binary.operations[2].op);
  EXPECT_EQ(c.root, 3u);
  EXPECT_EQ(c.dtype, DType::kInt4);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::kUnidirectionalRing);
}

TEST(WorkloadBinaryTest, UnknownFieldsAreReportedWithTheirPath) {
  auto w = valid_workload();
  auto* c = w.mutable_operations(1)->mutable_collective();
  c->GetReflection()->MutableUnknownFields(c)->AddVarint(99, 1);
  w.GetReflection()->MutableUnknownFields(&w)->AddLengthDelimited(50, "x");
  EXPECT_THAT(binary_errors(w.SerializeAsString()),
              ElementsAre(AllOf(IsDiagnostic("",
                                             "unknown field number 50 (length-delimited): "
                                             "podsim.Workload has no such field"),
                                At(0, 0)),
                          AllOf(IsDiagnostic("operations[1].collective",
                                             "unknown field number 99 (varint)"),
                                At(0, 0))));
}

TEST(WorkloadBinaryTest, RuleViolationsHaveFieldButNoPosition) {
  auto w = valid_workload();
  w.mutable_operations(0)->mutable_collective()->set_bytes(1000);
  const auto errors = binary_errors(w.SerializeAsString());
  EXPECT_THAT(errors, ElementsAre(AllOf(
                          IsDiagnostic("operations[0].collective.bytes", "do not divide evenly"),
                          At(0, 0))));
}

TEST(WorkloadBinaryTest, MalformedBytesAreRejected) {
  EXPECT_THAT(binary_errors(std::string("\xff\xff\xff", 3)),
              ElementsAre(IsDiagnostic("", "not a valid binary podsim.Workload message")));
}

TEST(WorkloadFileTest, ExtensionChoosesTheFormat) {
  const TempDir dir;
  const auto w = full_workload();
  const auto text = dir.write("w.textproto", text_of(w));
  const auto binary = dir.write("w.binpb", w.SerializeAsString());
  const WorkloadSpec a = load_workload_file(text, test_pod());
  const WorkloadSpec b = load_workload_file(binary, test_pod());
  EXPECT_EQ(a.source_file, text.string());
  EXPECT_EQ(b.source_file, binary.string());
  EXPECT_EQ(a.operations, b.operations);
}

TEST(WorkloadFileTest, DiagnosticsNameTheFile) {
  const TempDir dir;
  const auto path =
      dir.write("bad.textproto",
                "# a comment\nname: \"\"\n" +
                    text_of(valid_workload()).substr(text_of(valid_workload()).find("mesh")));
  try {
    load_workload_file(path, test_pod());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":2:1: name: must not be empty");
  }
}

TEST(WorkloadFileTest, MissingFileIsAnInputError) {
  const TempDir dir;
  EXPECT_THROW(load_workload_file(dir.path() / "absent.textproto", test_pod()), InputError);
  EXPECT_THROW(sniff_file_kind(dir.path() / "absent.textproto"), InputError);
}

TEST(SniffFileKindTest, HeaderDecides) {
  const TempDir dir;
  const std::string workload_header =
      "# proto-file: podsim/workload.proto\n# proto-message: podsim.Workload\n";
  const std::string topology_header =
      "# proto-file: podsim/topology.proto\n#proto-message:podsim.Topology  \n";
  EXPECT_EQ(sniff_file_kind(dir.write("w.textproto", workload_header + text_of(valid_workload()))),
            FileKind::kWorkload);
  EXPECT_EQ(sniff_file_kind(dir.write("t.textproto", topology_header + text_of(valid_topology()))),
            FileKind::kTopology);
  // The header wins over the contents (whose loader then reports them), and
  // may follow other comments and blank lines.
  EXPECT_EQ(sniff_file_kind(dir.write(
                "x.textproto", "\n# a pod\n\n" + workload_header + text_of(valid_topology()))),
            FileKind::kWorkload);
  // A header line after the message has started is not a header.
  EXPECT_EQ(sniff_file_kind(dir.write("y.textproto", text_of(valid_topology()) + workload_header)),
            FileKind::kTopology);
}

TEST(SniffFileKindTest, UnknownHeaderMessageIsAnError) {
  const TempDir dir;
  const auto path = dir.write("z.textproto", "# a comment\n  # proto-message: podsim.Model\n");
  try {
    sniff_file_kind(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(AllOf(IsDiagnostic("", "the header names message \"podsim.Model\""),
                                  At(2, 3))));
  }
}

TEST(SniffFileKindTest, WithoutHeaderTheContentsDecide) {
  const TempDir dir;
  EXPECT_EQ(sniff_file_kind(dir.write("w.textproto", text_of(valid_workload()))),
            FileKind::kWorkload);
  EXPECT_EQ(sniff_file_kind(dir.write("t.textproto", text_of(valid_topology()))),
            FileKind::kTopology);
  // A workload with a typo is not a clean workload: the topology loader will
  // report it (a reason to write the header).
  EXPECT_EQ(sniff_file_kind(dir.write("typo.textproto", text_of(valid_workload()) + "nme: \"\"\n")),
            FileKind::kTopology);
  // Both messages read these cleanly: a topology by default.
  EXPECT_EQ(sniff_file_kind(dir.write("empty.textproto", "")), FileKind::kTopology);
  EXPECT_EQ(sniff_file_kind(dir.write("name.textproto", "name: \"x\"\n")), FileKind::kTopology);
}

TEST(SniffFileKindTest, BinaryFilesAreTriedAsBothMessages) {
  const TempDir dir;
  EXPECT_EQ(sniff_file_kind(dir.write("w.pb", full_workload().SerializeAsString())),
            FileKind::kWorkload);
  EXPECT_EQ(sniff_file_kind(dir.write("t.pb", valid_topology().SerializeAsString())),
            FileKind::kTopology);
  // A header comment means nothing in a binary file.
  EXPECT_EQ(sniff_file_kind(dir.write("h.binpb", "# proto-message: podsim.Workload\n")),
            FileKind::kTopology);
}

TEST(SniffFileKindTest, ShippedTopologiesAreTopologies) {
  for (const auto& entry :
       std::filesystem::directory_iterator(testing::source_dir() / "topologies")) {
    if (!entry.is_regular_file())
      continue;  // calibration/: profiles, not topologies
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(sniff_file_kind(entry.path()), FileKind::kTopology);
  }
}

}  // namespace
}  // namespace podsim::config
