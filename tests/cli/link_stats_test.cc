// `podsim run --link-stats`: the per-link figures in the JSON agree with the
// per-collective summary (computed by other code), folding replicas changes
// nothing, and the flag is refused where it cannot be honoured.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/context.h"
#include "cli/exit_codes.h"
#include "cli_runner.h"
#include "result_json.h"

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

std::string path(const char* relative) {
  return (root() / relative).string();
}

TEST(LinkStats, AllReduceLinksAgreeWithTheCollectiveSummary) {
  const Result r = run({"run", "-t", path("topologies/v5e-16x16.textproto"), "-w",
                        path("workloads/allreduce-1gib-v5e-16x16.textproto"), "--format", "json",
                        "--link-stats"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const podsim::Result result = testing::parse_result(r.out);
  ASSERT_TRUE(result.has_link_stats());
  const podsim::LinkStats& links = result.link_stats();
  EXPECT_EQ(std::vector<uint32_t>(links.shape().begin(), links.shape().end()),
            (std::vector<uint32_t>{16, 16}));
  // 16x16 torus: 256 chips x 4 directed links.
  ASSERT_EQ(links.links_size(), 1024);
  // One operation from t = 0: its window is the makespan, so the per-link
  // figures must reproduce its mean and max over the links it used.
  double sum = 0;
  double max = 0;
  size_t used = 0;
  for (const auto& l : links.links()) {
    if (l.utilisation() > 0) {
      sum += l.utilisation();
      max = std::max(max, l.utilisation());
      ++used;
    }
  }
  ASSERT_GT(used, 0u);
  const podsim::CollectiveFigures& op = result.op_list().operations(0).collective();
  EXPECT_EQ(used, op.links_used());
  EXPECT_NEAR(sum / static_cast<double>(used), op.link_util_mean(), 1e-12);
  EXPECT_NEAR(max, op.link_util_max(), 1e-12);
  EXPECT_DOUBLE_EQ(links.window_us(), result.op_list().makespan_us());
}

TEST(LinkStats, FoldedRunReportsTheSameLinksAsTheFullRun) {
  const std::vector<std::string> base = {"run",
                                         "-t",
                                         path("topologies/v5e-16x16.textproto"),
                                         "-w",
                                         path("workloads/llama3-70b-decode-v5e.textproto"),
                                         "--format",
                                         "json",
                                         "--link-stats"};
  const Result folded = run(base);
  std::vector<std::string> full_args = base;
  full_args.push_back("--no-fold");
  const Result full = run(full_args);
  ASSERT_EQ(folded.code, kExitOk) << folded.err;
  ASSERT_EQ(full.code, kExitOk) << full.err;
  const podsim::Result a = testing::parse_result(folded.out);
  const podsim::Result b = testing::parse_result(full.out);
  ASSERT_LT(a.serving().spread().simulated_chips(), 256U);  // it did fold
  EXPECT_EQ(b.serving().spread().simulated_chips(), 256U);
  podsim::LinkStats unfolded = a.link_stats();
  ASSERT_TRUE(unfolded.replicas_unfolded());
  unfolded.set_replicas_unfolded(false);
  EXPECT_EQ(unfolded.SerializeAsString(), b.link_stats().SerializeAsString());
  EXPECT_GT(std::count_if(b.link_stats().links().begin(), b.link_stats().links().end(),
                          [](const auto& l) { return l.bytes() > 0; }),
            0);
}

TEST(LinkStats, WithoutTheFlagThereIsNoLinkList) {
  const Result r = run({"run", "--format", "json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out.find("\"link_stats\""), std::string::npos);
}

TEST(LinkStats, OnlyJsonCarriesThem) {
  for (const char* format : {"csv", "table"}) {
    const Result r = run({"run", "--format", format, "--link-stats"});
    EXPECT_EQ(r.code, kExitBadInput) << format;
    EXPECT_NE(r.err.find("--link-stats needs --format json"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
}  // namespace podsim::cli
