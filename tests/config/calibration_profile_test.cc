// Calibration profiles (config/calibration_loader.h): the shipped ones load,
// every rule reports file, field and line:column, and applying one checks the
// chip and replaces the pod's calibration whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "config/calibration_loader.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "podsim/calibration.pb.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using testing::IsDiagnostic;
using testing::source_dir;
using ::testing::StartsWith;
using testing::TempDir;

constexpr const char* kHeader =
    "# proto-file: podsim/calibration.proto\n# proto-message: podsim.CalibrationProfile\n";

// A valid profile; tests break one rule at a time.
std::string profile_text(const std::string& calibration = "ici_link_efficiency: 0.9 source: \"x\"",
                         const std::string& sources = "ici_link_efficiency: \"a figure\"",
                         const std::string& chip = "TPU v5e") {
  return std::string(kHeader) + "name: \"p\"\nchip: \"" + chip + "\"\ncalibration { " +
         calibration + " }\nsources { " + sources + " }\n";
}

std::vector<Diagnostic> errors(const std::string& text, const std::string& name = "p.textproto") {
  try {
    parse_calibration_text(text, name);
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "loaded:\n" << text;
  return {};
}

TEST(CalibrationProfileTest, ShippedProfilesLoadAndCiteEveryKnobTheySet) {
  std::set<std::string> seen;
  for (const auto& e :
       std::filesystem::directory_iterator(source_dir() / "topologies" / "calibration")) {
    if (e.is_directory())
      continue;  // fits/: the microbenchmarks the profiles were fitted to
    SCOPED_TRACE(e.path().string());
    seen.insert(e.path().filename().string());
    EXPECT_THAT(read_file_to_string(e.path()), StartsWith(kHeader));
    const CalibrationProfileSpec p = load_calibration_file(e.path());
    EXPECT_FALSE(p.calibration.source.empty());
    EXPECT_EQ(p.calibration.profile, p.name);
    EXPECT_EQ(p.calibration.profile_file, e.path().string());
    EXPECT_EQ(p.calibration.profile_sha256.size(), 64U);
  }
  // One per shipped chip (tests/calibrate/shipped_profiles_test.cc checks each
  // matches a shipped topology's chip).
  EXPECT_EQ(seen, (std::set<std::string>{"tpu7x.textproto", "v4.textproto", "v5e.textproto",
                                         "v5p.textproto", "v6e.textproto"}));
}

TEST(CalibrationProfileTest, ShippedV5eHasTheFittedKnobsAndMatchesTheV5eTopologies) {
  const CalibrationProfileSpec p =
      load_calibration_file(source_dir() / "topologies/calibration/v5e.textproto");
  EXPECT_EQ(p.chip, "TPU v5e");
  EXPECT_DOUBLE_EQ(p.calibration.ici_link_efficiency, 0.746);
  EXPECT_EQ(p.calibration.collective_overhead, sim::Time::from_ns_rounded(2365));
  EXPECT_DOUBLE_EQ(p.calibration.mxu_efficiency, 0.92322);
  // Transferred from TPU7x's fitted profile (no v5e measurement identifies them).
  EXPECT_DOUBLE_EQ(p.calibration.hbm_efficiency, 0.873852);
  EXPECT_DOUBLE_EQ(p.calibration.dcn_efficiency, 1.0);
  EXPECT_EQ(p.calibration.op_overhead, sim::Time::from_ns_rounded(1745.01));
  EXPECT_THAT(p.sources.op_overhead_ns, HasSubstr("transferred from"));
  EXPECT_THAT(p.sources.ici_link_efficiency, HasSubstr("Pop Quiz 2"));
  EXPECT_THAT(p.sources.mxu_efficiency, HasSubstr("Matrix Multiplication"));
  EXPECT_EQ(p.chip, load_topology_file(source_dir() / "topologies/v5e-4x4.textproto").chip.name);
  const CalibrationProfileSpec v4 =
      load_calibration_file(source_dir() / "topologies/calibration/v4.textproto");
  EXPECT_EQ(v4.chip, load_topology_file(source_dir() / "topologies/v4-4x4x4.textproto").chip.name);
}

TEST(CalibrationProfileTest, TextAndBinaryGiveEqualSpecs) {
  podsim::CalibrationProfile m;
  m.set_name("p");
  m.set_chip("TPU v5e");
  m.mutable_calibration()->set_mxu_efficiency(0.5);
  m.mutable_calibration()->set_source("s");
  m.mutable_sources()->set_mxu_efficiency("a figure");
  const TempDir dir;
  const CalibrationProfileSpec binary =
      load_calibration_file(dir.write("p.binpb", m.SerializeAsString()));
  EXPECT_DOUBLE_EQ(binary.calibration.mxu_efficiency, 0.5);
  CalibrationProfileSpec text = parse_calibration_text(
      "name: \"p\" chip: \"TPU v5e\" calibration { mxu_efficiency: 0.5 source: \"s\" } "
      "sources { mxu_efficiency: \"a figure\" }",
      (dir.path() / "p.binpb").string());
  text.chip_line = text.chip_column = 0;  // binary input has no positions
  text.source_sha256 = binary.source_sha256;
  text.calibration.profile_sha256 = binary.calibration.profile_sha256;
  EXPECT_EQ(text, binary);
}

TEST(CalibrationProfileTest, BadKnobNamesFileFieldAndPosition) {
  const auto e = errors(profile_text("ici_link_efficiency: 1.5 source: \"x\""));
  ASSERT_EQ(e.size(), 1U);
  EXPECT_THAT(e[0], IsDiagnostic("calibration.ici_link_efficiency", "must be in [0.001, 1]"));
  EXPECT_EQ(e[0].file, "p.textproto");
  EXPECT_EQ(e[0].line, 5);
  EXPECT_GT(e[0].column, 0);
  EXPECT_THAT(errors(profile_text("collective_overhead_ns: -1 source: \"x\"",
                                  "collective_overhead_ns: \"f\"")),
              ElementsAre(IsDiagnostic("calibration.collective_overhead_ns", "must be >= 0")));
}

TEST(CalibrationProfileTest, SourcesAreRequired) {
  EXPECT_THAT(errors(profile_text("ici_link_efficiency: 0.9")),
              ElementsAre(IsDiagnostic("calibration.source", "required")));
  // Even with every knob ideal: the profile says why.
  EXPECT_THAT(errors(profile_text("", "")),
              ElementsAre(IsDiagnostic("calibration.source", "required")));
  EXPECT_THAT(
      errors(profile_text("mxu_efficiency: 0.9 source: \"x\"", "")),
      ElementsAre(IsDiagnostic("sources.mxu_efficiency", "calibration.mxu_efficiency is set")));
}

TEST(CalibrationProfileTest, NameAndChipAreRequired) {
  const auto e = errors(std::string(kHeader) + "calibration { source: \"x\" }\n");
  EXPECT_THAT(e, ElementsAre(IsDiagnostic("name", "must not be empty"),
                             IsDiagnostic("chip", "must not be empty")));
}

TEST(CalibrationProfileTest, UnknownFieldIsRejectedWithItsPosition) {
  const auto e = errors(profile_text("ici_link_eficiency: 0.9 source: \"x\""));
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e[0].file, "p.textproto");
  EXPECT_EQ(e[0].line, 5);
  EXPECT_THAT(e[0].message, HasSubstr("ici_link_eficiency"));
}

TEST(CalibrationProfileTest, MissingFileNamesIt) {
  try {
    load_calibration_file("no/such/profile.textproto");
    FAIL() << "loaded";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1U);
    EXPECT_EQ(e.diagnostics()[0].file, "no/such/profile.textproto");
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("cannot read"));
  }
}

TEST(CalibrationProfileTest, ApplyReplacesTheCalibrationAndNamesTheProfile) {
  const CalibrationProfileSpec p = parse_calibration_text(profile_text(), "p.textproto");
  PodSpec pod = load_topology_file(source_dir() / "topologies/v5e-4x4.textproto");
  ASSERT_EQ(pod.calibration, CalibrationSpec{});
  apply_calibration(p, pod);
  EXPECT_DOUBLE_EQ(pod.calibration.ici_link_efficiency, 0.9);
  EXPECT_EQ(pod.calibration.profile, "p");
  EXPECT_EQ(pod.calibration.profile_file, "p.textproto");
  EXPECT_FALSE(pod.calibration.replaced_topology_calibration);
}

TEST(CalibrationProfileTest, ApplyOverATopologysOwnCalibrationReplacesItWholeAndSaysSo) {
  const CalibrationProfileSpec p = parse_calibration_text(profile_text(), "p.textproto");
  PodSpec pod = load_topology_file(source_dir() / "topologies/v5e-4x4.textproto");
  pod.calibration.mxu_efficiency = 0.5;  // as a topology file's calibration would
  pod.calibration.source = "own";
  apply_calibration(p, pod);
  EXPECT_DOUBLE_EQ(pod.calibration.mxu_efficiency, 1.0);  // not merged
  EXPECT_EQ(pod.calibration.source, "x");
  EXPECT_TRUE(pod.calibration.replaced_topology_calibration);
}

TEST(CalibrationProfileTest, ApplyToAnotherChipNamesBothAndThePosition) {
  const CalibrationProfileSpec p = parse_calibration_text(profile_text(), "p.textproto");
  PodSpec pod = load_topology_file(source_dir() / "topologies/v4-4x4x4.textproto");
  try {
    apply_calibration(p, pod);
    FAIL() << "applied";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1U);
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.file, "p.textproto");
    EXPECT_EQ(d.field, "chip");
    EXPECT_EQ(d.line, 4);
    EXPECT_EQ(d.column, 1);
    EXPECT_THAT(d.message, AllOf(HasSubstr("\"TPU v5e\""), HasSubstr("\"TPU v4\""),
                                 HasSubstr("tpu-v4-4x4x4")));
  }
}

TEST(CalibrationProfileTest, ApplyBesideACalibrationOverrideIsRefused) {
  const CalibrationProfileSpec p = parse_calibration_text(profile_text(), "p.textproto");
  PodSpec pod = load_topology_file(source_dir() / "topologies/v5e-4x4.textproto",
                                   {{"topology.calibration.ici_link_efficiency", "0.5"},
                                    {"topology.calibration.source", "mine"}});
  try {
    apply_calibration(p, pod);
    FAIL() << "applied";
  } catch (const InputError& e) {
    EXPECT_THAT(e.diagnostics(),
                ElementsAre(Field(&Diagnostic::message,
                                  HasSubstr("--set topology.calibration.ici_link_efficiency=0.5")),
                            Field(&Diagnostic::message, HasSubstr("give one or the other"))));
  }
}

TEST(CalibrationProfileTest, SniffedAsACalibrationProfile) {
  const TempDir dir;
  EXPECT_EQ(sniff_file_kind(source_dir() / "topologies/calibration/v5e.textproto"),
            FileKind::kCalibration);
  // Without the header too: a profile does not parse as a topology or workload.
  EXPECT_EQ(sniff_file_kind(dir.write("p.txt", "name: \"p\" chip: \"TPU v5e\"")),
            FileKind::kCalibration);
}

}  // namespace
}  // namespace podsim::config
