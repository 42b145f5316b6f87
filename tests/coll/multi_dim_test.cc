// A mesh axis laid over several torus dimensions runs its collectives the way
// XLA runs a multi-dimensional replica group on a TPU torus: one ring (or
// line) per dimension, on split shares, so every link of those dimensions
// carries data at once. On the shipped v5e 4x4 (lines) and v4 4x4x4 (rings)
// slices, every kind over one axis [x, y(, z)] must match the same
// collective over one axis per dimension, and the closed form of its
// schedule (schedule_forms.h), within 2%; the snake ring stays available as
// ALGORITHM_SNAKE_RING and is slower.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "coll_fixture.h"
#include "config/topology_loader.h"
#include "schedule_forms.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveAlgorithm;
using config::CollectiveKind;

struct Slice {
  std::string file;
  std::vector<std::string> dims;
};

void PrintTo(const Slice& s, std::ostream* os) {
  *os << s.file;
}

class MultiDimAxis : public ::testing::TestWithParam<Slice> {
 protected:
  MultiDimAxis() : pod_(config::load_topology_file(GetParam().file)) {}

  // One axis "all" over every dimension.
  topo::DeviceMesh one_axis() const {
    std::vector<uint32_t> dims;
    for (uint32_t d = 0; d < pod_.dim_count(); ++d) {
      dims.push_back(d);
    }
    return topo::DeviceMesh(pod_, {{"all", dims}});
  }
  std::vector<FormDim> form_dims() const {
    std::vector<FormDim> dims;
    for (uint32_t d = 0; d < pod_.dim_count(); ++d) {
      dims.push_back({pod_.dim_size(d), pod_.wraparound(d)});
    }
    return dims;
  }
  FormLink link() const {
    const auto& d = pod_.spec().torus.dims[0];
    return {static_cast<double>(d.link_bandwidth.bytes_per_s()), d.hop_latency.to_s()};
  }
  double chips() const { return pod_.chip_count(); }

  // Runs `c` over the one axis and over one axis per dimension; both must
  // finish and agree within 2%. Returns the one-axis time.
  double run_both(config::CollectiveSpec c) {
    c.axes = {"all"};
    const Outcome one = run(pod_, one_axis(), c);
    c.axes = GetParam().dims;
    const Outcome separate = run(pod_, one_axis_per_dim(pod_), c);
    EXPECT_TRUE(one.done);
    EXPECT_TRUE(separate.done);
    EXPECT_NEAR(one.seconds, separate.seconds, 0.02 * separate.seconds)
        << to_string(c.kind) << " of " << c.bytes << " bytes";
    return one.seconds;
  }

  static void expect_form(double actual, double expected, const std::string& what) {
    EXPECT_NEAR(actual, expected, 0.02 * expected)
        << what << ": got " << actual * 1e6 << " us, closed form " << expected * 1e6 << " us";
  }

  topo::Pod pod_;
};

TEST_P(MultiDimAxis, RingFamilyMatchesSeparateAxesAndClosedForm) {
  // A latency-bound and a bandwidth-bound size, each dividing over the shares.
  for (const uint64_t v : {uint64_t{768} * 1024, uint64_t{48} * kMiB}) {
    const double bytes = static_cast<double>(v);
    expect_form(run_both(collective(CollectiveKind::kAllGather, v, {})),
                all_gather_seconds(form_dims(), bytes, link()), "all-gather");
    expect_form(run_both(collective(CollectiveKind::kReduceScatter, v, {})),
                reduce_scatter_seconds(form_dims(), bytes, link()), "reduce-scatter");
    expect_form(run_both(collective(CollectiveKind::kAllReduce, v, {})),
                all_reduce_seconds(form_dims(), bytes, link()), "all-reduce");
  }
}

TEST_P(MultiDimAxis, AllToAllMatchesSeparateAxesAndClosedForm) {
  // Blocks of megabytes: the closed form's latency term is an upper bound.
  const uint64_t v = uint64_t{3} << 30;
  expect_form(run_both(collective(CollectiveKind::kAllToAll, v, {})),
              all_to_all_seconds(form_dims(), static_cast<double>(v), link()), "all-to-all");
}

TEST_P(MultiDimAxis, BroadcastMatchesSeparateAxesAndClosedForm) {
  const uint64_t v = 64 * kMiB;  // 64 pieces of 1 MiB
  for (const uint32_t root : {0U, 5U}) {
    auto c = collective(CollectiveKind::kBroadcast, v, {});
    c.root = root;
    // The root's coordinates: member `root` of the group in snake order.
    const std::vector<std::string> all{"all"};
    const topo::ChipId chip = one_axis().groups(all).front()[root];
    std::vector<uint32_t> coords;
    for (uint32_t d = 0; d < pod_.dim_count(); ++d) {
      coords.push_back(pod_.coord(chip, d));
    }
    expect_form(run_both(c), broadcast_seconds(form_dims(), coords, v, link()),
                "broadcast from " + std::to_string(root));
  }
}

TEST_P(MultiDimAxis, PermuteMatchesSeparateAxesAndClosedForm) {
  // Snake neighbours are physical neighbours: one hop each, on distinct links.
  const uint64_t v = 16 * kMiB;
  auto c = collective(CollectiveKind::kPermute, v, {});
  c.shift = 1;
  expect_form(run_both(c), static_cast<double>(v) / link().w1 + link().alpha, "permute");
}

TEST_P(MultiDimAxis, SnakeRingIsTheSlowerExplicitChoice) {
  auto c = collective(CollectiveKind::kAllReduce, 48 * kMiB, {"all"});
  const Outcome per_dim = run(pod_, one_axis(), c);
  c.algorithm = CollectiveAlgorithm::kSnakeRing;
  const Outcome snake = run(pod_, one_axis(), c);
  ASSERT_TRUE(snake.done);
  // The snake uses two of each chip's ports, the per-dimension rings all of them.
  EXPECT_GT(snake.seconds, 1.5 * per_dim.seconds);
}

INSTANTIATE_TEST_SUITE_P(ShippedSlices, MultiDimAxis,
                         ::testing::Values(Slice{"topologies/v5e-4x4.textproto", {"x", "y"}},
                                           Slice{"topologies/v4-4x4x4.textproto", {"x", "y", "z"}}),
                         [](const auto& param) {
                           return param.index == 0 ? "v5e_4x4" : "v4_4x4x4";
                         });

}  // namespace
}  // namespace podsim::coll::testing
