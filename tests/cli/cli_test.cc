// The command line driven in-process: exit codes, streams, usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

std::filesystem::path temp_file(const std::string& name, const std::string& contents) {
  const auto path = std::filesystem::temp_directory_path() / ("podsim_cli_test_" + name);
  std::ofstream(path) << contents;
  return path;
}

TEST(Cli, HelpListsCommandsAndExitCodes) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_NE(r.out.find("validate"), std::string::npos);
  EXPECT_NE(r.out.find("topo"), std::string::npos);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  EXPECT_TRUE(r.err.empty());
}

TEST(Cli, VersionGoesToStdout) {
  const Result r = run({"--version"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_EQ(r.out.rfind("podsim ", 0), 0U);
}

TEST(Cli, NoCommandIsUsageError) {
  const Result r = run({});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("no command"), std::string::npos);
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, UnknownCommandAndOptionAreUsageErrors) {
  EXPECT_EQ(run({"frobnicate"}).code, kExitBadInput);
  EXPECT_EQ(run({"--frobnicate"}).code, kExitBadInput);
  const Result r = run({"topo", "--no-such-option"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("no-such-option"), std::string::npos);
}

TEST(Cli, BadLogLevelIsUsageError) {
  EXPECT_EQ(run({"--log-level", "loud", "topo"}).code, kExitBadInput);
  EXPECT_EQ(run({"--log-level"}).code, kExitBadInput);
  EXPECT_EQ(run({"--log-level=debug", "topo"}).code, kExitOk);
}

TEST(Cli, SubcommandHelp) {
  for (const char* cmd : {"validate", "topo"}) {
    const Result r = run({cmd, "--help"});
    EXPECT_EQ(r.code, kExitOk) << cmd;
    EXPECT_NE(r.out.find("Usage: podsim"), std::string::npos) << cmd;
  }
}

TEST(Cli, ValidateAcceptsEveryShippedTopology) {
  std::vector<std::string> args = {"validate"};
  for (const auto& e : std::filesystem::directory_iterator(root() / "topologies")) {
    if (e.is_regular_file())  // calibration/ holds profiles
      args.push_back(e.path().string());
  }
  ASSERT_GT(args.size(), 10U);
  const Result r = run(args);
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(r.err.empty());
}

TEST(Cli, ValidateReportsEveryBadFileAndExits2) {
  const auto bad1 = temp_file("bad1.textproto", "name: \"x\"\ntorus { dims { size: 0 } }\n");
  const auto bad2 = temp_file("bad2.textproto", "name: \"y\" bogus: 1\n");
  const auto good = (root() / "topologies" / "v5e-4x4.textproto").string();
  const Result r = run({"validate", bad1.string(), good, bad2.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  // Both bad files are named, with a field path; the good one is reported ok.
  EXPECT_NE(r.err.find(bad1.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("torus.dims[0].size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad2.string() + ":1:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(good + ": ok"), std::string::npos) << r.out;
}

TEST(Cli, ValidateMissingFileIsBadInput) {
  const Result r = run({"validate", "/nonexistent/pod.textproto"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("/nonexistent/pod.textproto"), std::string::npos);
}

TEST(Cli, ValidateWithoutFilesIsUsageError) {
  EXPECT_EQ(run({"validate"}).code, kExitBadInput);
}

}  // namespace
}  // namespace podsim::cli
