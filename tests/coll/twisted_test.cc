// Collectives on twisted tori follow the links the slice really has. On every
// shipped twisted topology (topologies/*twisted*.textproto), every collective
// kind over each axis -- each dimension alone and all of them together -- is
// no slower than on the same slice with the twisted dimensions' wraparound
// removed (a twisted dimension can always run as a line), and the twist makes
// a full-slice all-to-all faster and the bisection larger than on the
// untwisted slice, as the TPU v4 paper (Jouppi et al., ISCA 2023) reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "coll_fixture.h"
#include "config/topology_loader.h"
#include "topo/metrics.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

std::vector<std::string> shipped_twisted() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator("topologies")) {
    const std::string name = e.path().filename().string();
    if (name.find("twisted") != std::string::npos && e.path().extension() == ".textproto") {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool twisted_dim(const config::PodSpec& spec, uint32_t d) {
  return std::any_of(spec.torus.twists.begin(), spec.torus.twists.end(),
                     [d](const config::TwistSpec& t) { return t.dim == d; });
}

// The slice without its twists; with `unwrap`, the twisted dimensions also
// lose their wraparound (they become lines).
config::PodSpec without_twists(config::PodSpec spec, bool unwrap) {
  for (uint32_t d = 0; d < spec.torus.dims.size(); ++d) {
    if (unwrap && twisted_dim(spec, d)) {
      spec.torus.dims[d].wraparound = false;
    }
  }
  spec.torus.twists.clear();
  return spec;
}

topo::DeviceMesh all_dims(const topo::Pod& pod) {
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < pod.dim_count(); ++d) {
    dims.push_back(d);
  }
  return topo::DeviceMesh(pod, {{"all", dims}});
}

// One collective of every kind over a group of n chips, sized to divide.
std::vector<config::CollectiveSpec> every_kind(uint64_t n) {
  std::vector<config::CollectiveSpec> out;
  for (const CollectiveKind k :
       {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, CollectiveKind::kAllReduce}) {
    out.push_back(collective(k, n * 256 * 1024, {}));  // 256 KiB per chip
  }
  out.push_back(collective(CollectiveKind::kAllToAll, n * n * 4096, {}));  // 4 KiB blocks
  out.push_back(collective(CollectiveKind::kBroadcast, 16 * kMiB, {}));
  auto permute = collective(CollectiveKind::kPermute, kMiB, {});
  permute.shift = 1;
  out.push_back(permute);
  return out;
}

class Twisted : public ::testing::TestWithParam<std::string> {};

TEST_P(Twisted, EveryKindOverEachAxisIsNoSlowerThanWithoutTheWrap) {
  const config::PodSpec spec = config::load_topology_file(GetParam());
  const topo::Pod twisted(spec);
  const topo::Pod lines(without_twists(spec, true));
  struct Axis {
    std::string name;
    bool all;
  };
  std::vector<Axis> axes;
  for (const auto& d : spec.torus.dims) {
    axes.push_back({d.name, false});
  }
  axes.push_back({"all", true});
  for (const Axis& axis : axes) {
    const auto mesh_t = axis.all ? all_dims(twisted) : one_axis_per_dim(twisted);
    const auto mesh_l = axis.all ? all_dims(lines) : one_axis_per_dim(lines);
    const std::vector<std::string> names{axis.name};
    const uint64_t n = mesh_t.axis_size(axis.name);
    for (config::CollectiveSpec c : every_kind(n)) {
      c.axes = names;
      const Outcome t = run(twisted, mesh_t, c);
      const Outcome l = run(lines, mesh_l, c);
      ASSERT_TRUE(t.done && l.done);
      EXPECT_LE(t.seconds, l.seconds * (1 + 1e-9))
          << to_string(c.kind) << " over " << axis.name << ": twisted " << t.seconds * 1e6
          << " us, without the wrap " << l.seconds * 1e6 << " us ("
          << lower(twisted, mesh_t, c).schedule << ")";
    }
  }
}

TEST_P(Twisted, TwistSpeedsUpAllToAllAndRaisesBisection) {
  const config::PodSpec spec = config::load_topology_file(GetParam());
  const topo::Pod twisted(spec);
  const topo::Pod plain(without_twists(spec, false));
  const uint64_t n = twisted.chip_count();
  const auto c = collective(CollectiveKind::kAllToAll, n * n * 4096, {"all"});
  const Outcome t = run(twisted, all_dims(twisted), c);
  const Outcome p = run(plain, all_dims(plain), c);
  ASSERT_TRUE(t.done && p.done);
  // The shortest routes through the twisted links are shorter and spread the
  // load over every link (the v4 paper: 1.31x to 1.63x all-to-all throughput).
  EXPECT_LT(t.seconds, p.seconds / 1.15)
      << "twisted " << t.seconds * 1e6 << " us, untwisted " << p.seconds * 1e6 << " us";
  EXPECT_GT(topo::bisection(twisted)->bandwidth, topo::bisection(plain)->bandwidth);
  EXPECT_LT(*topo::diameter_hops(twisted), *topo::diameter_hops(plain));
}

// A group that does not span the twisted dimension still gains from the
// twist: on the twisted v5p 8x16x16 an all-to-all over the y-z plane goes
// round the x cycle where that is shorter (8 hops for a block 8 along y and
// 8 along z, 16 on the plane).
TEST(TwistedPlane, YzAllToAllTakesTheXCycleShortcuts) {
  const config::PodSpec spec =
      config::load_topology_file("topologies/v5p-8x16x16-twisted.textproto");
  const topo::Pod twisted(spec);
  const topo::Pod plain(without_twists(spec, false));
  const auto mesh_t = topo::DeviceMesh(twisted, {{"x", {0}}, {"yz", {1, 2}}});
  const auto mesh_p = topo::DeviceMesh(plain, {{"x", {0}}, {"yz", {1, 2}}});
  const auto c = collective(CollectiveKind::kAllToAll, uint64_t{256} * 256 * 65536, {"yz"});
  EXPECT_NE(lower(twisted, mesh_t, c).schedule.find("through the twisted links"),
            std::string::npos);
  const Outcome t = run(twisted, mesh_t, c);
  const Outcome p = run(plain, mesh_p, c);
  ASSERT_TRUE(t.done && p.done);
  EXPECT_LT(t.seconds, p.seconds);
}

INSTANTIATE_TEST_SUITE_P(ShippedTwistedTopologies, Twisted, ::testing::ValuesIn(shipped_twisted()),
                         [](const auto& param) {
                           std::string name = std::filesystem::path(param.param).stem().string();
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(TwistedTopologies, AreShipped) {
  EXPECT_GE(shipped_twisted().size(), 2U);
}

}  // namespace
}  // namespace podsim::coll::testing
