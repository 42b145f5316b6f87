// Input files are bounded before they are parsed (docs/inputs.md,
// "Formats"): nesting past 100 levels is refused with the line and column
// where it goes too deep (15,000 nested "a {" overflowed protobuf's stack,
// exit 139), and a file larger than the limit stops the reader there
// (/dev/zero grew past 6 GB).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/diagnostics.h"
#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string nested(const std::string& field, int depth) {
  std::string text = "name: \"t\"\n";
  for (int i = 0; i < depth; ++i)
    text += field + " {";
  for (int i = 0; i < depth; ++i)
    text += "}";
  return text + "\n";
}

std::vector<Diagnostic> topology_errors(const std::string& text) {
  try {
    parse_topology_text(text, "deep.textproto");
  } catch (const InputError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "loaded";
  return {};
}

TEST(TextInputLimitsTest, DeepNestingIsRefusedWhereItGoesTooDeep) {
  for (const char* field : {"a", "mesh", "chip"}) {
    for (const int depth : {101, 15000}) {
      const auto errors = topology_errors(nested(field, depth));
      ASSERT_EQ(errors.size(), 1U) << field << " " << depth;
      EXPECT_EQ(errors[0].file, "deep.textproto");
      EXPECT_EQ(errors[0].line, 2);
      EXPECT_THAT(errors[0].message, HasSubstr("nested more than 100 levels deep"));
    }
  }
  // Braces in strings and comments do not count.
  std::string quoted = "name: \"" + std::string(200, '{') + "\" # " + std::string(200, '{') + "\n";
  for (const auto& d : topology_errors(quoted))
    EXPECT_THAT(d.message, ::testing::Not(HasSubstr("nested")));
  // A workload goes through the same parser.
  const PodSpec pod = testing::load(testing::valid_topology());
  try {
    parse_workload_text(nested("mesh", 30000), "deep-w.textproto", pod);
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("deep-w.textproto:2:"));
    EXPECT_THAT(e.what(), HasSubstr("nested more than 100 levels deep"));
  }
}

TEST(TextInputLimitsTest, AFileLargerThanTheLimitIsNotReadToTheEnd) {
  try {
    read_file_to_string("/dev/zero");
    ADD_FAILURE() << "read /dev/zero whole";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/dev/zero"));
    EXPECT_THAT(e.what(), HasSubstr("larger than the limit of 64 MiB"));
  }
  testing::TempDir dir;
  const auto small = dir.write("small.textproto", "name: \"x\"\n");
  EXPECT_EQ(read_file_to_string(small, 10), "name: \"x\"\n");
  EXPECT_THROW(read_file_to_string(small, 9), InputError);
}

// Issue 27: `--op-table /dev/zero` read the whole 1 GiB table limit (2.1 GB,
// 22 s) before refusing. A table is text: its first NUL byte ends the read.
TEST(TextInputLimitsTest, ATextTableStopsAtItsFirstNulByte) {
  try {
    read_file_to_string("/dev/zero", kMaxTableFileBytes, FileContents::kText);
    ADD_FAILURE() << "read /dev/zero as text";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/dev/zero"));
    EXPECT_THAT(e.what(), HasSubstr("byte 1 is a NUL: not a text file"));
  }
  testing::TempDir dir;
  const auto cell =
      dir.write("trace.csv", std::string("TIMESTAMP,ContextTokens,GeneratedTokens\n0,1\0,2\n", 47));
  try {
    read_file_to_string(cell, kMaxTableFileBytes, FileContents::kText);
    ADD_FAILURE() << "read a NUL in a cell";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("byte 44 is a NUL"));
  }
}

// Issue 27: a serve or sweep file naming /dev/zero or "." was told "no such file".
TEST(TextInputLimitsTest, ANamedInputThatIsNotAFileSaysWhatItIs) {
  EXPECT_EQ(input_file_problem("/dev/zero"), "/dev/zero is a character device, not a file");
  EXPECT_EQ(input_file_problem("."), ". is a directory, not a file");
  EXPECT_EQ(input_file_problem("/no/such/file"), "no such file: /no/such/file");
  testing::TempDir dir;
  EXPECT_EQ(input_file_problem(dir.write("t.textproto", "x")), "");
}

}  // namespace
}  // namespace podsim::config
