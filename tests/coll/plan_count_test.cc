// coll::min_transfers bounds a run's transfers from below on every kind of
// collective and every network model, is exact where it says it is (rings,
// lines), and each transfer is at least one event: what the work estimate
// (study/work_estimate.h, engine::OpListOptions::before_start) relies on.
#include <gtest/gtest.h>

#include <tuple>

#include "coll_fixture.h"
#include "sim/simulation.h"

namespace podsim::coll::testing {
namespace {

using config::CollectiveKind;

struct CountCase {
  const char* label;
  std::vector<Dim> dims;
  uint32_t slices;
  CollectiveKind kind;
  std::vector<std::string> axes;
  enum { kZero, kBound, kExact } counted;  // kExact: the bound is the count
};

const std::vector<CountCase>& count_cases() {
  using K = CollectiveKind;
  static const std::vector<CountCase> kCases = {
      {"ar_ring", {{8, true}}, 1, K::kAllReduce, {"x"}, CountCase::kExact},
      {"ag_ring_odd", {{7, true}}, 1, K::kAllGather, {"x"}, CountCase::kExact},
      {"rs_line", {{5, false}}, 1, K::kReduceScatter, {"x"}, CountCase::kExact},
      {"ar_2d", {{4, true}, {4, true}}, 1, K::kAllReduce, {"x", "y"}, CountCase::kExact},
      {"ar_3d",
       {{4, true}, {3, false}, {3, true}},
       1,
       K::kAllReduce,
       {"x", "y", "z"},
       CountCase::kExact},
      {"a2a_2d", {{4, true}, {4, false}}, 1, K::kAllToAll, {"x", "y"}, CountCase::kExact},
      {"bcast_ring", {{6, true}}, 1, K::kBroadcast, {"x"}, CountCase::kZero},
      {"permute", {{5, true}}, 1, K::kPermute, {"x"}, CountCase::kExact},
      {"ar_dcn", {{4, true}}, 3, K::kAllReduce, {"x", "dcn"}, CountCase::kBound},
  };
  return kCases;
}

class MinTransfers : public ::testing::TestWithParam<std::tuple<size_t, net::Model>> {};

TEST_P(MinTransfers, BoundsTheTransfersAndTheEventsOfARun) {
  const CountCase& k = count_cases()[std::get<0>(GetParam())];
  const topo::Pod pod(pod_spec(k.dims, k.slices));
  const auto mesh = one_axis_per_dim(pod);
  auto c = collective(k.kind, 3 * 4 * 5 * 7 * 64 * 1024, k.axes);
  if (k.kind == CollectiveKind::kPermute) {
    c.shift = 2;
  }
  if (k.kind == CollectiveKind::kBroadcast) {
    c.root = 1;
  }
  const Plan plan = lower(pod, mesh, c);
  const uint64_t bound = min_transfers(plan);

  net::Options options;
  options.model = std::get<1>(GetParam());
  auto network = net::make_network(pod, options);
  sim::Simulation sim;
  CollectiveRun run(pod, *network, plan);
  run.start(sim);
  sim.run();
  ASSERT_TRUE(run.done()) << k.label;

  EXPECT_EQ(bound == 0, k.counted == CountCase::kZero) << k.label;
  EXPECT_LE(bound, run.transfers_delivered()) << k.label;
  EXPECT_LE(bound, sim.events_executed()) << k.label;
  if (k.counted == CountCase::kExact) {
    EXPECT_EQ(bound, run.transfers_delivered()) << k.label;
  }
}

std::string count_case_name(const ::testing::TestParamInfo<MinTransfers::ParamType>& info) {
  return std::string(count_cases()[std::get<0>(info.param)].label) + "_" +
         std::string(net::to_string(std::get<1>(info.param)));
}

INSTANTIATE_TEST_SUITE_P(AllKinds, MinTransfers,
                         ::testing::Combine(::testing::Range<size_t>(0, 9),
                                            ::testing::Values(net::Model::kAnalytical,
                                                              net::Model::kFlow,
                                                              net::Model::kPacket)),
                         count_case_name);

// A 1024 x 1024 torus all-reduce: the bound is what the rings send (two
// shares, each reduce-scatter and all-gather over both dimensions; a
// balanced even ring takes 512 steps each way, so 1024 steps per ring
// pass), counted without running anything.
TEST(MinTransfersLarge, MillionChipAllReduceIsCountedFromThePlan) {
  const topo::Pod pod(pod_spec({{1024, true}, {1024, true}}));
  const auto mesh = one_axis_per_dim(pod);
  const Plan plan = lower(pod, mesh, collective(CollectiveKind::kAllReduce, kGiB, {"x", "y"}));
  EXPECT_EQ(min_transfers(plan), 2ULL * 4 * 1024 * 1024 * 1024);
}

}  // namespace
}  // namespace podsim::coll::testing
