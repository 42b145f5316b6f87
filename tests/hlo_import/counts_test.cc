// podsim's module totals (podsim hlo-stats, src/hlo_import/stats.h) against
// scripts/hlo_counts.py, which reads the same files its own way (regular
// expressions, collective bytes from result shapes), on every module under
// tests/hlo/data, tests/hlo_import/data and workloads/hlo.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/context.h"
#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

TEST(HloCountsTest, PodsimAgreesWithTheIndependentScript) {
  if (!std::filesystem::exists("/usr/bin/python3")) {
    GTEST_SKIP() << "no /usr/bin/python3";
  }
  int modules = 0;
  for (const char* dir : {"tests/hlo/data", "tests/hlo_import/data", "workloads/hlo"}) {
    for (const auto& entry : std::filesystem::directory_iterator(source_dir() / dir)) {
      if (entry.path().extension() != ".hlo") {
        continue;
      }
      std::ostringstream out;
      std::ostringstream err;
      const int code = cli::run_cli({"hlo-stats", entry.path().string()}, out, err);
      ASSERT_EQ(code, 0) << entry.path() << ": " << err.str();
      EXPECT_EQ(out.str(), hlo_counts_script(entry.path())) << entry.path();
      ++modules;
    }
  }
  EXPECT_GE(modules, 7);
}

TEST(HloCountsTest, MirrorTotalsByHand) {
  // Per layer: qkv 2x8x2048x3072, out 2x8x2048x2048, up_gate 2x8x2048x14336,
  // down 2x8x7168x2048 = 872,415,232 FLOPs; the lm_head 2x8x4096x32064 =
  // 2,101,346,304 (the while body counts once here).
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cli::run_cli({"hlo-stats",
                          (source_dir() / "workloads/hlo/llama3-8b-decode-v5e-2x2.hlo").string()},
                         out, err),
            0);
  EXPECT_NE(out.str().find("dots 5\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("dot_flops 2973761536\n"), std::string::npos) << out.str();
  // all-gather: 32 KiB x 3 + 112 KiB + 64 KiB per the module's shapes.
  EXPECT_NE(out.str().find("collective all-gather count 5 bytes 278528\n"), std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace podsim::hlo_import::testing
