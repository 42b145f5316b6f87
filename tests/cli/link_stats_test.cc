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

namespace podsim::cli {
namespace {

using testing::Result;
using testing::root;
using testing::run;

std::string path(const char* relative) {
  return (root() / relative).string();
}

// Every number after "key": in `json`, in order.
std::vector<double> numbers(const std::string& json, const std::string& key) {
  const std::regex re("\"" + key + "\": (-?[0-9.eE+-]+)");
  std::vector<double> v;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator();
       ++it) {
    v.push_back(std::stod((*it)[1]));
  }
  return v;
}

TEST(LinkStats, AllReduceLinksAgreeWithTheCollectiveSummary) {
  const Result r = run({"run", "-t", path("topologies/v5e-16x16.textproto"), "-w",
                        path("workloads/allreduce-1gib-v5e-16x16.textproto"), "--format", "json",
                        "--link-stats"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const size_t at = r.out.find("\"link_stats\"");
  ASSERT_NE(at, std::string::npos);
  const std::string links = r.out.substr(at);
  EXPECT_NE(links.find("\"shape\": [\n      16,\n      16\n    ]"), std::string::npos);
  // 16x16 torus: 256 chips x 4 directed links.
  const std::vector<double> util = numbers(links, "utilisation");
  ASSERT_EQ(util.size(), 1024u);
  ASSERT_EQ(numbers(links, "bytes").size(), 1024u);
  // One operation from t = 0: its window is the makespan, so the per-link
  // figures must reproduce its mean and max over the links it used.
  double sum = 0;
  size_t used = 0;
  for (const double u : util) {
    if (u > 0) {
      sum += u;
      ++used;
    }
  }
  ASSERT_GT(used, 0u);
  EXPECT_EQ(used, static_cast<size_t>(numbers(r.out, "links_used").at(0)));
  EXPECT_NEAR(sum / static_cast<double>(used), numbers(r.out, "link_util_mean").at(0), 1e-12);
  EXPECT_NEAR(*std::max_element(util.begin(), util.end()), numbers(r.out, "link_util_max").at(0),
              1e-12);
  EXPECT_DOUBLE_EQ(numbers(links, "window_us").at(0), numbers(r.out, "makespan_us").at(0));
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
  ASSERT_LT(numbers(folded.out, "simulated_chips").at(0), 256);  // it did fold
  EXPECT_EQ(numbers(full.out, "simulated_chips").at(0), 256);
  std::string a = folded.out.substr(folded.out.find("\"link_stats\""));
  const std::string b = full.out.substr(full.out.find("\"link_stats\""));
  const std::string mark = "\"replicas_unfolded\": true";
  ASSERT_NE(a.find(mark), std::string::npos);
  a.replace(a.find(mark), mark.size(), "\"replicas_unfolded\": false");
  EXPECT_EQ(a, b);
  const std::vector<double> bytes = numbers(b, "bytes");
  EXPECT_GT(std::count_if(bytes.begin(), bytes.end(), [](double v) { return v > 0; }), 0);
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
