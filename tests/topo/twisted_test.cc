// The shipped twisted v5p slices against the same slices with the twists
// removed: the twist must raise the bisection and lower the diameter, as
// twisted tori are meant to (Jouppi et al., ISCA 2023). Also the figures
// the files' comments quote.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "config/topology_loader.h"
#include "topo/metrics.h"
#include "topo/pod.h"
#include "topo/routing.h"

namespace podsim::topo {
namespace {

std::filesystem::path topologies_dir() {
  const char* dir = std::getenv("PODSIM_SOURCE_DIR");
  const std::filesystem::path root =
      dir != nullptr && *dir != '\0' ? std::filesystem::path(dir) : std::filesystem::current_path();
  return root / "topologies";
}

struct Figures {
  uint32_t diameter = 0;
  uint64_t bisection_links = 0;
};

Figures figures(const config::PodSpec& spec) {
  const Pod pod(spec);
  return {*diameter_hops(pod), bisection(pod)->links};
}

struct ShippedCase {
  std::string file;
  size_t twists;
  Figures twisted;
  Figures plain;
};

TEST(ShippedTwistedTest, TwistRaisesBisectionAndLowersDiameter) {
  const ShippedCase cases[] = {
      // k x 2k x 2k: plain diameter 4 + 8 + 8; plain bisection the 128 y (or
      // z) rings cut twice; twisted, every x wrap link crosses the y and z
      // half cuts too (2 x 128 more), while the x cut stays 256 rings x 2.
      {"v5p-8x16x16-twisted.textproto", 2, {12, 512}, {20, 256}},
      // k x k x 2k: plain diameter 2 + 2 + 4; plain bisection the 16 z rings
      // cut twice; twisted, the x and y cuts (32 rings x 2) are the smallest.
      {"v5p-4x4x8-twisted.textproto", 2, {6, 64}, {8, 32}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    config::PodSpec spec = config::load_topology_file(topologies_dir() / c.file);
    ASSERT_EQ(spec.torus.twists.size(), c.twists);
    const Figures twisted = figures(spec);
    spec.torus.twists.clear();
    const Figures plain = figures(spec);
    EXPECT_GT(twisted.bisection_links, plain.bisection_links);
    EXPECT_LT(twisted.diameter, plain.diameter);
    EXPECT_EQ(twisted.diameter, c.twisted.diameter);
    EXPECT_EQ(twisted.bisection_links, c.twisted.bisection_links);
    EXPECT_EQ(plain.diameter, c.plain.diameter);
    EXPECT_EQ(plain.bisection_links, c.plain.bisection_links);
  }
}

TEST(ShippedTwistedTest, XRingClosesThroughTheTwistedWrap) {
  const Pod pod(config::load_topology_file(topologies_dir() / "v5p-8x16x16-twisted.textproto"));
  const ChipId chip = 3 + 8 * (5 + 16 * 9);  // (3, 5, 9)
  EXPECT_EQ(cycle_length(pod, chip, 0), 16u);
  EXPECT_EQ(cycle_length(pod, chip, 1), 16u);
  // The x wrap of (7, 5, 9) lands at (0, 13, 1).
  const ChipId end = 7 + 8 * (5 + 16 * 9);
  EXPECT_EQ(pod.neighbour(end, 0, +1), ChipId{0 + 8 * (13 + 16 * 1)});
}

}  // namespace
}  // namespace podsim::topo
