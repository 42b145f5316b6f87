#include "config/diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::HasSubstr;

TEST(DiagnosticTest, FormatsFileLineColumnFieldAndMessage) {
  const Diagnostic d{"topologies/x.textproto", "torus.dims[1].size", 12, 5, "must be >= 1, got 0"};
  EXPECT_EQ(d.to_string(), "topologies/x.textproto:12:5: torus.dims[1].size: must be >= 1, got 0");
}

TEST(DiagnosticTest, OmitsLineAndColumnWhenUnknown) {
  const Diagnostic d{"pod.pb", "chip.hbm_bytes", 0, 0, "must be >= 1, got 0"};
  EXPECT_EQ(d.to_string(), "pod.pb: chip.hbm_bytes: must be >= 1, got 0");
}

TEST(DiagnosticTest, OmitsFieldWhenUnknown) {
  const Diagnostic d{"x.textproto", "", 3, 7, "Expected \":\", found \"4\"."};
  EXPECT_EQ(d.to_string(), "x.textproto:3:7: Expected \":\", found \"4\".");
}

TEST(DiagnosticTest, LineWithoutColumn) {
  const Diagnostic d{"x.textproto", "name", 3, 0, "must not be empty"};
  EXPECT_EQ(d.to_string(), "x.textproto:3: name: must not be empty");
}

TEST(DiagnosticTest, MessageAloneWhenNothingElseIsKnown) {
  const Diagnostic d{"", "", 0, 0, "something is wrong"};
  EXPECT_EQ(d.to_string(), "something is wrong");
}

TEST(InputErrorTest, WhatJoinsEveryDiagnosticWithNewlines) {
  const InputError e({Diagnostic{"a.textproto", "name", 1, 1, "must not be empty"},
                      Diagnostic{"a.textproto", "chip", 0, 0, "missing chip spec"}});
  EXPECT_STREQ(e.what(),
               "a.textproto:1:1: name: must not be empty\na.textproto: chip: missing chip spec");
  ASSERT_EQ(e.diagnostics().size(), 2u);
  EXPECT_EQ(e.diagnostics()[1].message, "missing chip spec");
}

TEST(ReadFileTest, ReadsBytesExactly) {
  const testing::TempDir dir;
  const std::string bytes("a\0b\r\nc", 6);
  EXPECT_EQ(read_file_to_string(dir.write("f.bin", bytes)), bytes);
}

TEST(ReadFileTest, MissingFileNamesTheFile) {
  const testing::TempDir dir;
  const auto missing = dir.path() / "nope.textproto";
  try {
    read_file_to_string(missing);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].file, missing.string());
    EXPECT_THAT(e.diagnostics()[0].message, HasSubstr("no such file"));
  }
}

TEST(ReadFileTest, DirectoryIsRejected) {
  const testing::TempDir dir;
  try {
    read_file_to_string(dir.path());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a directory"));
  }
}

}  // namespace
}  // namespace podsim::config
