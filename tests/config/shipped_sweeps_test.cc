// Every sweep under workloads/sweeps/ has the headers, loads and names itself
// after its file (tests/sweep/ runs their points).
#include <gtest/gtest.h>

#include <filesystem>

#include "config/diagnostics.h"
#include "config/sweep_loader.h"
#include "test_support.h"

namespace podsim::config {
namespace {

TEST(ShippedSweepsTest, EveryFileHasTheHeadersAndLoads) {
  size_t files = 0;
  for (const auto& path : podsim::testing::textprotos("workloads/sweeps")) {
    SCOPED_TRACE(path.string());
    ++files;
    const std::string text = read_file_to_string(path);
    EXPECT_EQ(text.rfind("# proto-file: podsim/sweep.proto\n"
                         "# proto-message: podsim.Sweep\n",
                         0),
              0U);
    const SweepSpec s = load_sweep_file(path);
    EXPECT_EQ(s.name + ".textproto", path.filename().string());
    EXPECT_GE(s.points, 3U);
  }
  EXPECT_EQ(files, 9U);
}

}  // namespace
}  // namespace podsim::config
