// The two input formats: text-format positions (syntax errors, unknown fields,
// semantic errors), binary unknown fields, equality of the two, and how
// load_topology_file() picks a format from the extension.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/topology_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::TempDir;
using testing::text_errors;
using testing::valid_topology;

// A minimal valid topology; line numbers are given for the tests below.
constexpr const char* kValidText =
    "name: \"p\"\n"                                                  // 1
    "chip {\n"                                                       // 2
    "  name: \"c\"\n"                                                // 3
    "  peak { bf16_tflops: 0.002 }\n"                                // 4
    "  hbm_bytes: 1\n"                                               // 5
    "  hbm_bandwidth_gbps: 1\n"                                      // 6
    "  matrix_units { count: 1 rows: 1 columns: 1 clock_ghz: 1 }\n"  // 7
    "  ici_ports: 2\n"                                               // 8
    "}\n"                                                            // 9
    "torus {\n"                                                      // 10
    "  dims { size: 4 wraparound: true link_bandwidth_gbps: 1 }\n"   // 11
    "}\n";                                                           // 12

// kValidText with the first occurrence of `from` replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kValidText;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

auto At(int line, int column) {
  return AllOf(Field("line", &Diagnostic::line, line),
               Field("column", &Diagnostic::column, column));
}

TEST(TextFormatTest, ValidTextLoads) {
  EXPECT_EQ(parse_topology_text(kValidText, "t.textproto").chip_count(), 4u);
}

TEST(TextFormatTest, SyntaxErrorHasLineAndColumn) {
  // Line 11: "  dims { size 4 ...": the parser wants ':' where it finds the 4
  // (0-based column 14, so 1-based 15).
  const auto errors = text_errors(edited("size: 4", "size 4"));
  ASSERT_EQ(errors.size(), 1u);  // nothing is validated after a syntax error
  EXPECT_EQ(errors[0].file, "test.textproto");
  EXPECT_THAT(errors[0], At(11, 15));
  EXPECT_THAT(errors[0].message, HasSubstr("Expected \":\""));
  EXPECT_EQ(errors[0].to_string().rfind("test.textproto:11:15: ", 0), 0u);
}

TEST(TextFormatTest, UnterminatedMessageIsASyntaxError) {
  // Without the torus' closing brace the input ends (line 12) inside it.
  std::string text = kValidText;
  text.resize(text.size() - 2);  // drop the final "}\n"
  const auto errors = text_errors(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], At(12, 1));
}

TEST(TextFormatTest, RepeatedSingularFieldIsAnError) {
  const auto errors = text_errors(edited("name: \"p\"\n", "name: \"p\"\nname: \"q\"\n"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 2);
  EXPECT_THAT(errors[0].message, HasSubstr("specified multiple times"));
}

TEST(TextFormatTest, UnknownFieldsHavePathLineAndColumn) {
  // Line 5 "  hbm_bytes: 1 hbm_size: 2": hbm_size starts at 1-based column 16.
  // Line 11 "  dims { size: 4 sise: 3 ...": sise starts at column 18.
  std::string text = kValidText;
  text.replace(text.find("hbm_bytes: 1"), 12, "hbm_bytes: 1 hbm_size: 2");
  text.replace(text.find("size: 4"), 7, "size: 4 sise: 3");
  text += "bogus { deeper: 1 }\n";  // line 13, column 1
  const auto errors = text_errors(text);
  EXPECT_THAT(errors,
              ElementsAre(AllOf(IsDiagnostic("chip.hbm_size", "unknown field"), At(5, 16)),
                          AllOf(IsDiagnostic("torus.dims[0].sise",
                                             "podsim.Dimension has no field named \"sise\""),
                                At(11, 18)),
                          AllOf(IsDiagnostic("bogus", "unknown field"), At(13, 1))));
}

TEST(TextFormatTest, UnknownFieldsAndRuleViolationsAreReportedTogether) {
  // A misspelt field leaves the real one unset: both problems are listed.
  const auto errors = text_errors(edited("  ici_ports: 2", "  ici_prots: 2"));
  EXPECT_THAT(errors, ElementsAre(IsDiagnostic("chip.ici_prots", "unknown field"),
                                  IsDiagnostic("chip.ici_ports", "must be >= 1, got 0")));
}

TEST(TextFormatTest, RuleViolationPointsAtTheField) {
  // Line 11: "  dims { size: 4 wraparound: true link_bandwidth_gbps: -1 }";
  // link_bandwidth_gbps starts at 1-based column 35.
  const auto errors = text_errors(edited("link_bandwidth_gbps: 1", "link_bandwidth_gbps: -1"));
  EXPECT_THAT(errors, ElementsAre(AllOf(
                          IsDiagnostic("torus.dims[0].link_bandwidth_gbps", "must be > 0, got -1"),
                          At(11, 35))));
  EXPECT_EQ(errors[0].to_string(),
            "test.textproto:11:35: torus.dims[0].link_bandwidth_gbps: must be > 0, got -1");
}

TEST(TextFormatTest, AbsentFieldPointsAtItsEnclosingMessage) {
  // hbm_bytes is left out: the diagnostic points at "chip {" (line 2, column 1).
  const auto errors = text_errors(edited("  hbm_bytes: 1\n", ""));
  EXPECT_THAT(errors,
              ElementsAre(AllOf(IsDiagnostic("chip.hbm_bytes", "must be >= 1, got 0"), At(2, 1))));
}

TEST(TextFormatTest, MissingMessageHasNoPosition) {
  const std::string text = std::string(kValidText).substr(std::string(kValidText).find("torus"));
  EXPECT_THAT(text_errors("name: \"p\"\n" + text),
              ElementsAre(AllOf(IsDiagnostic("chip", "missing chip spec"), At(0, 0))));
}

// A topology that sets every field, to compare text and binary loads.
podsim::Topology full_topology() {
  auto t = valid_topology();
  t.set_description("all fields");
  t.mutable_chip()->mutable_peak()->set_fp8_tflops(82);
  t.mutable_chip()->mutable_matrix_units()->set_fp8_macs_per_cycle(2);
  t.mutable_chip()->mutable_matrix_units()->set_weight_load_bytes_per_cycle(512);
  t.mutable_torus()->mutable_dims(0)->set_name("row");
  auto* twist = t.mutable_torus()->add_twists();
  twist->set_dim(0);
  twist->set_shift_dim(1);
  twist->set_offset(2);
  t.set_slices(2);
  t.mutable_dcn()->set_bandwidth_gbps_per_chip(6.25);
  t.mutable_dcn()->set_latency_ns(10000);
  auto* link = t.add_failed_links();
  for (uint32_t c : {1u, 2u, 0u})
    link->add_coords(c);
  link->set_slice(1);
  link->set_dim(1);
  link->set_direction(-1);
  t.mutable_calibration()->set_ici_link_efficiency(0.9);
  t.mutable_calibration()->set_dcn_efficiency(0.8);
  t.mutable_calibration()->set_collective_overhead_ns(1500);
  t.mutable_calibration()->set_source("test");
  return t;
}

TEST(BinaryFormatTest, TextAndBinaryGiveEqualSpecs) {
  const auto t = full_topology();
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(t, &text));
  PodSpec from_text = parse_topology_text(text, "pod.textproto");
  const PodSpec from_binary = parse_topology_binary(t.SerializeAsString(), "pod.pb");
  EXPECT_EQ(from_text.source_file, "pod.textproto");
  EXPECT_EQ(from_binary.source_file, "pod.pb");
  from_text.source_file = from_binary.source_file;
  EXPECT_NE(from_text.source_sha256, from_binary.source_sha256);  // of different bytes
  from_text.source_sha256 = from_binary.source_sha256;
  EXPECT_EQ(from_text, from_binary);
  // And the fields really are set (equality of two empty specs proves nothing).
  EXPECT_EQ(from_binary.chip_count(), 64u);
  EXPECT_EQ(from_binary.torus.dims[0].name, "row");
  EXPECT_EQ(from_binary.failed_links.size(), 1u);
  EXPECT_DOUBLE_EQ(from_binary.calibration.dcn_efficiency, 0.8);
}

TEST(BinaryFormatTest, UnknownFieldsAreReportedWithTheirPath) {
  auto t = valid_topology();
  auto* dim = t.mutable_torus()->mutable_dims(1);
  dim->GetReflection()->MutableUnknownFields(dim)->AddVarint(99, 1);
  t.GetReflection()->MutableUnknownFields(&t)->AddFixed32(100, 7);
  try {
    parse_topology_binary(t.SerializeAsString(), "pod.pb");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(AllOf(IsDiagnostic("",
                                               "unknown field number 100 (fixed32): "
                                               "podsim.Topology has no such field"),
                                  At(0, 0)),
                            AllOf(IsDiagnostic("torus.dims[1]", "unknown field number 99 (varint)"),
                                  At(0, 0))));
  }
}

TEST(BinaryFormatTest, RuleViolationsHaveFieldButNoPosition) {
  auto t = valid_topology();
  t.mutable_chip()->set_ici_ports(0);
  try {
    parse_topology_binary(t.SerializeAsString(), "pod.pb");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(AllOf(IsDiagnostic("chip.ici_ports", "must be >= 1"), At(0, 0))));
    EXPECT_STREQ(e.what(), "pod.pb: chip.ici_ports: must be >= 1, got 0");
  }
}

TEST(BinaryFormatTest, MalformedBytesAreRejected) {
  try {
    parse_topology_binary(std::string("\xff\xff\xff", 3), "junk.pb");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(IsDiagnostic("", "not a valid binary podsim.Topology message")));
  }
}

TEST(LoadFileTest, ExtensionChoosesTheFormat) {
  const TempDir dir;
  const std::string binary = valid_topology().SerializeAsString();
  for (const char* name : {"a.textproto", "a.txtpb", "a.pbtxt", "a.cfg", "noextension"}) {
    const auto path = dir.write(name, kValidText);
    const PodSpec pod = load_topology_file(path);
    EXPECT_EQ(pod.source_file, path.string());
    EXPECT_EQ(pod.chip_count(), 4u) << name;
  }
  for (const char* name : {"a.pb", "a.binpb"}) {
    const auto path = dir.write(name, binary);
    EXPECT_EQ(load_topology_file(path).chip_count(), 32u) << name;
  }
}

TEST(LoadFileTest, TextInABinaryFileIsRejected) {
  const TempDir dir;
  const auto path = dir.write("text.pb", kValidText);
  try {
    load_topology_file(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].file, path.string());
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("not a valid binary"));
  }
}

TEST(LoadFileTest, DiagnosticsNameTheFile) {
  const TempDir dir;
  const auto path = dir.write("bad.textproto", edited("ici_ports: 2", "ici_ports: 0"));
  try {
    load_topology_file(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":8:3: chip.ici_ports: must be >= 1, got 0");
  }
}

TEST(LoadFileTest, MissingFileIsAnInputError) {
  const TempDir dir;
  EXPECT_THROW(load_topology_file(dir.path() / "absent.textproto"), InputError);
}

}  // namespace
}  // namespace podsim::config
