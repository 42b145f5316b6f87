// A sweep's points by index: grid order (first parameter slowest), zip,
// fixed overrides first, run options as parameters.
#include "sweep/points.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace podsim::sweep {
namespace {

using ::testing::ElementsAre;

config::SweepSpec grid() {
  config::SweepSpec s;
  s.set = {"workload.sharding.data_axes=[]"};
  s.parameters = {{"workload.scenario.batch", {"1", "2", "4"}, {}},
                  {"network", {"analytical", "flow"}, {}},
                  {"topology.chip.hbm_bytes", {"8", "16"}, {}}};
  s.points = 12;
  return s;
}

TEST(PointsTest, GridVariesTheLastParameterFastest) {
  const config::SweepSpec s = grid();
  const Point p0 = point_at(s, 0);
  EXPECT_THAT(p0.overrides, ElementsAre("workload.sharding.data_axes=[]",
                                        "workload.scenario.batch=1", "topology.chip.hbm_bytes=8"));
  EXPECT_EQ(p0.network, "analytical");
  EXPECT_EQ(p0.compute, "roofline");
  const Point p1 = point_at(s, 1);
  EXPECT_THAT(p1.varied, ElementsAre("workload.scenario.batch=1", "network=analytical",
                                     "topology.chip.hbm_bytes=16"));
  const Point p7 = point_at(s, 7);  // 7 = 1*4 + 1*2 + 1
  EXPECT_THAT(p7.varied, ElementsAre("workload.scenario.batch=2", "network=flow",
                                     "topology.chip.hbm_bytes=16"));
  EXPECT_EQ(p7.index, 7U);
}

TEST(PointsTest, GridVisitsEveryCombinationOnce) {
  const config::SweepSpec s = grid();
  std::set<std::vector<std::string>> seen;
  for (uint64_t i = 0; i < s.points; ++i)
    seen.insert(point_at(s, i).varied);
  EXPECT_EQ(seen.size(), 12U);
  EXPECT_THROW(point_at(s, 12), std::out_of_range);
}

TEST(PointsTest, FilesAndAlsoPaths) {
  config::SweepSpec s = grid();
  s.set.clear();
  s.workload_file = std::string("base.textproto");
  s.parameters = {{"topology", {"a.textproto", "b.textproto"}, {}},
                  {"topology.torus.dims[0].link_bandwidth_gbps",
                   {"25"},
                   {"topology.torus.dims[1].link_bandwidth_gbps"}}};
  s.points = 2;
  const Point p = point_at(s, 1);
  EXPECT_EQ(p.topology_file, "b.textproto");
  EXPECT_EQ(p.workload_file, "base.textproto");
  EXPECT_THAT(p.overrides, ElementsAre("topology.torus.dims[0].link_bandwidth_gbps=25",
                                       "topology.torus.dims[1].link_bandwidth_gbps=25"));
}

TEST(PointsTest, ZipTakesTheIthValueOfEach) {
  config::SweepSpec s;
  s.combine = config::SweepCombine::kZip;
  s.parameters = {{"workload.scenario.batch", {"1", "2", "4"}, {}},
                  {"compute", {"roofline", "systolic", "roofline"}, {}}};
  s.points = 3;
  const Point p = point_at(s, 1);
  EXPECT_THAT(p.overrides, ElementsAre("workload.scenario.batch=2"));
  EXPECT_EQ(p.compute, "systolic");
  EXPECT_EQ(point_at(s, 2).compute, "roofline");
}

}  // namespace
}  // namespace podsim::sweep
