// podsim report on the command line: the page written whole, never over an
// input, and exit 2 naming the file when an input is bad.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/context.h"

namespace podsim::cli {
namespace {

namespace fs = std::filesystem;

struct Ran {
  int code;
  std::string out;
  std::string err;
};

Ran podsim(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReportCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
           ("report_command_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const char* root = std::getenv("PODSIM_SOURCE_DIR");
    baseline_ = (fs::path(root != nullptr ? root : ".") / "tests/regression/baselines/serving.csv")
                    .string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string baseline_;
};

TEST_F(ReportCommand, WritesThePageOrPrintsIt) {
  const fs::path out = dir_ / "report.html";
  const Ran r = podsim({"report", baseline_, "-o", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string page = slurp(out);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  const Ran again = podsim({"report", baseline_});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, page);  // stdout and the file: the same bytes
}

TEST_F(ReportCommand, ResultJsonAndBinpbReadAsTheRowsOfOneTable) {
  const std::string json = (dir_ / "r.json").string();
  const std::string binpb = (dir_ / "r.binpb").string();
  ASSERT_EQ(podsim({"run", "--format", "json", "--out", json}).code, 0);
  ASSERT_EQ(podsim({"run", "--format", "binpb", "--out", binpb}).code, 0);
  const Ran r = podsim({"report", json, binpb});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(json + ", " + binpb + " (2 rows)"), std::string::npos);
  EXPECT_NE(r.out.find("Step-time breakdown"), std::string::npos);
}

TEST_F(ReportCommand, BadInputExits2AndWritesNothing) {
  const fs::path out = dir_ / "report.html";
  std::ofstream(dir_ / "bad.csv") << "a,b\n1,2\n";
  const Ran r = podsim({"report", baseline_, (dir_ / "bad.csv").string(), "-o", out.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.csv: a CSV whose header"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ReportCommand, RefusesToWriteOverAnInput) {
  const fs::path copy = dir_ / "serving.csv";
  fs::copy_file(baseline_, copy);
  const std::string before = slurp(copy);
  const Ran r = podsim({"report", copy.string(), "-o", copy.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--out " + copy.string() + " is also the FILE input"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(copy), before);
}

TEST_F(ReportCommand, NoFilesIsAUsageError) {
  const Ran r = podsim({"report"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("at least one file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace podsim::cli
