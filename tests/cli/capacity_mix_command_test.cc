// `podsim capacity --choose-mix` (docs/serving.md, "Heterogeneous
// fleets"): its usage rules exit 2 naming the problem; a search prints a row
// per mix served and names the mix.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli/exit_codes.h"
#include "cli_runner.h"

namespace podsim::cli {
namespace {

using ::testing::HasSubstr;
using testing::Result;
using testing::root;
using testing::run;

std::string shipped_serve(const char* name) {
  return (root() / "workloads/serve" / name).string();
}

TEST(CapacityMixCommand, NeedsATargetRateAndAFileOfSeveralEntries) {
  const std::string hetero = shipped_serve("llama3-70b-hetero.serve.textproto");
  const Result no_rate = run({"capacity", hetero, "--choose-mix"});
  EXPECT_EQ(no_rate.code, kExitBadInput) << no_rate.err;
  EXPECT_THAT(no_rate.err, HasSubstr("--choose-mix needs --target-rate"));
  const Result both =
      run({"capacity", hetero, "--target-rate", "2", "--choose-mix", "--fewest-replicas"});
  EXPECT_EQ(both.code, kExitBadInput) << both.err;
  const Result one = run({"capacity", shipped_serve("llama3-8b-poisson.serve.textproto"),
                          "--target-rate", "2", "--choose-mix"});
  EXPECT_EQ(one.code, kExitBadInput) << one.err;
  EXPECT_THAT(one.err, HasSubstr("llama3-8b-poisson.serve.textproto: replicas:"));
  EXPECT_THAT(one.err, HasSubstr("replica entries; it has 1"));
  const Result cost =
      run({"capacity", hetero, "--target-rate", "2", "--choose-mix", "--minimise", "cost"});
  EXPECT_EQ(cost.code, kExitBadInput) << cost.err;
  EXPECT_THAT(cost.err, HasSubstr("--minimise cost needs --pricing"));
}

TEST(CapacityMixCommand, NamesTheMixWithTheFewestChips) {
  const Result r = run({"capacity", shipped_serve("llama3-70b-hetero.serve.textproto"),
                        "--target-rate", "2", "--choose-mix", "--max-replicas", "2"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  // The file's own SLOs (1 s, 100 ms) hold at 2 requests/s with one slice each.
  EXPECT_THAT(r.out, HasSubstr("prefill-v6e_copies"));
  EXPECT_THAT(r.out,
              HasSubstr("(1 of 4 mixes served): 1 x prefill-v6e, 1 x decode-v5e (32 chips)"));
}

}  // namespace
}  // namespace podsim::cli
