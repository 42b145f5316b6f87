// A write error on stdout is an error (issue 27): `podsim sweep ... > full.csv`
// on a full disk exited 0 with a truncated file, and every command exited 0
// on `> /dev/full`. Here stdout is a stream whose every write fails.
#include <gtest/gtest.h>

#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

// A stream buffer that takes nothing: as a full disk behind stdout.
class FullBuf : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(StdoutErrors, EveryCommandExits2WhenStdoutCannotBeWritten) {
  const std::string src = testing::root().string();
  const std::vector<std::vector<std::string>> commands = {
      {"--help"},
      {"--version"},
      {"topo", src + "/topologies/v5e-2x2.textproto"},
      {"topo", "--help"},
      {"validate", src + "/topologies/v5e-2x2.textproto"},
      {"run", "-w", src + "/workloads/matmuls-v5e-4x4.textproto", "-t",
       src + "/topologies/v5e-4x4.textproto", "--format", "csv"},
  };
  for (const auto& args : commands) {
    FullBuf full;
    std::ostream out(&full);
    std::ostringstream err;
    const int code = run_cli(args, out, err);
    EXPECT_EQ(code, kExitBadInput) << args[0] << ": " << err.str();
    EXPECT_NE(err.str().find("standard output: cannot write output"), std::string::npos)
        << args[0] << ": " << err.str();
  }
}

TEST(StdoutErrors, AGoodStdoutStillExits0) {
  const auto r = testing::run({"topo", testing::root().string() + "/topologies/v5e-2x2.textproto"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
}

}  // namespace
}  // namespace podsim::cli
