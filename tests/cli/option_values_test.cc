// Option values the commands must refuse with exit 2 (issue 27): unsigned
// options given a negative number (Boost.Program_options would wrap "-5"
// into 2^64 - 5) and capacity objectives that are no objective (0, < 0,
// NaN, infinity), which left the search doubling the rate to 10^9/s.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;

std::string poisson_serve() {
  return (root() / "workloads/serve/llama3-8b-poisson.serve.textproto").string();
}

TEST(OptionValues, UnsignedOptionsRefuseSignsAndWrapsOfEveryCommand) {
  const std::string f = poisson_serve();
  const std::vector<std::vector<std::string>> cases = {
      {"serve", f, "--seed", "-5"},
      {"serve", f, "--seed", "+5"},
      {"serve", f, "--seed", "18446744073709551616"},  // 2^64
      {"serve", f, "--seed", "5x"},
      {"capacity", f, "--percentile", "-1"},
      {"capacity", f, "--percentile", "4294967395"},  // 2^32 + 99 wrapped to 99 in 32 bits
      {"capacity", f, "--target-rate", "1", "--fewest-replicas", "--max-replicas", "-5"},
  };
  for (const auto& args : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[2] << " " << args.back() << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("expected a whole number from 0 to")) << args.back();
  }
}

TEST(OptionValues, CapacityObjectivesMustBeTimesAboveZero) {
  const std::string f = poisson_serve();
  for (const char* option : {"--ttft-ms", "--tpot-ms", "--tbt-ms"}) {
    for (const char* value : {"0", "-1", "nan", "inf"}) {
      const Result r = run({"capacity", f, option, value});
      EXPECT_EQ(r.code, kExitBadInput) << option << " " << value << ": " << r.err;
      EXPECT_THAT(r.err, HasSubstr(std::string(option) + ": expected a time > 0 ms"));
    }
  }
}

}  // namespace
}  // namespace podsim::cli
