// Collectives (src/hlo_import/collectives.cc): device groups onto torus
// dimensions, V from the shapes, permutes as shifts or pairs, and the groups
// podsim refuses.
#include <gtest/gtest.h>

#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

using config::CollectiveKind;

const char* const kCollectivesAdd = R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

std::string module(const std::string& header, const std::string& entry) {
  return "HloModule m, " + header + "\n\n" + kCollectivesAdd + "\nENTRY %main {\n" + entry + "}\n";
}

class HloCollectivesTest : public ::testing::Test {
 protected:
  const topo::Pod pod{pod_2x2()};  // device d = chip d = (d % 2, d / 2)
};

TEST_F(HloCollectivesTest, EachKindOverItsTorusDimensions) {
  const auto w = import_text(module("num_partitions=4", R"(
  %x = f32[64,256]{1,0} parameter(0)
  %ar = f32[64,256]{1,0} all-reduce(%x), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
  %ag = f32[64,512]{1,0} all-gather(%ar), channel_id=2, replica_groups=[2,2]<=[4], dimensions={1}, use_global_device_ids=true
  %rs = f32[64,128]{1,0} reduce-scatter(%ar), channel_id=3, replica_groups={{0,2},{1,3}}, dimensions={1}, use_global_device_ids=true, to_apply=%add
  ROOT %a2a = f32[64,256]{1,0} all-to-all(%ar), channel_id=4, replica_groups={{0,1,2,3}}, dimensions={0}
)"),
                             pod)
                     .workload;
  ASSERT_EQ(w.mesh.size(), 2u);
  EXPECT_EQ(w.mesh[0], (config::MeshAxisDecl{"x", {0}}));
  EXPECT_EQ(w.mesh[1], (config::MeshAxisDecl{"y", {1}}));
  // V: 64 x 256 x 4 bytes = 65,536 per chip.
  const auto& ar = collective_of(w, "ar");
  EXPECT_EQ(ar.kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(ar.axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(ar.bytes, 65536u);
  EXPECT_EQ(ar.dtype, config::DType::kFp32);
  const auto& ag = collective_of(w, "ag");  // the gathered result: 2 x 65,536
  EXPECT_EQ(ag.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(ag.axes, std::vector<std::string>{"x"});
  EXPECT_EQ(ag.bytes, 131072u);
  const auto& rs = collective_of(w, "rs");  // each chip's input
  EXPECT_EQ(rs.kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(rs.axes, std::vector<std::string>{"y"});
  EXPECT_EQ(rs.bytes, 65536u);
  const auto& a2a = collective_of(w, "a2a");  // the whole array: 4 x 65,536
  EXPECT_EQ(a2a.kind, CollectiveKind::kAllToAll);
  EXPECT_EQ(a2a.axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(a2a.bytes, 262144u);
}

TEST_F(HloCollectivesTest, RunsExactlyAsPodsimsOwnCollective) {
  const auto w = import_text(module("num_partitions=4", R"(
  %x = bf16[256,1024]{1,0} parameter(0)
  ROOT %ar = bf16[256,1024]{1,0} all-reduce(%x), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
)"),
                             pod)
                     .workload;
  // The same all-reduce written by hand: 256 x 1024 x 2 bytes over x and y.
  config::WorkloadSpec own;
  own.name = "own";
  own.mesh = {{"x", {0}}, {"y", {1}}};
  config::CollectiveSpec c;
  c.kind = CollectiveKind::kAllReduce;
  c.bytes = 524288;
  c.axes = {"x", "y"};
  own.operations.push_back(config::OperationSpec{"ar", {}, 1, c});
  for (const net::Model m : {net::Model::kAnalytical, net::Model::kFlow, net::Model::kPacket}) {
    const auto mine = play(pod, w, m);
    const auto theirs = play(pod, own, m);
    EXPECT_EQ(mine.makespan, theirs.makespan) << net::to_string(m);
    EXPECT_EQ(mine.fingerprint, theirs.fingerprint) << net::to_string(m);
  }
}

TEST_F(HloCollectivesTest, AsyncPairsAreTheSameCollectives) {
  const auto w = import_text(module("num_partitions=4, is_scheduled=true", R"(
  %x = f32[64,256]{1,0} parameter(0)
  %ars = f32[64,256]{1,0} all-reduce-start(%x), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
  %ard = f32[64,256]{1,0} all-reduce-done(%ars)
  %ags = (f32[64,256]{1,0}, f32[64,512]{1,0}) all-gather-start(%ard), channel_id=2, replica_groups=[2,2]<=[4], dimensions={1}, use_global_device_ids=true
  %agd = f32[64,512]{1,0} all-gather-done(%ags)
  %cps = (f32[64,256]{1,0}, f32[64,256]{1,0}, u32[], u32[]) collective-permute-start(%ard), channel_id=3, source_target_pairs={{0,1},{1,0},{2,3},{3,2}}
  %cpd = f32[64,256]{1,0} collective-permute-done(%cps)
  %rss = ((f32[64,256]{1,0}), f32[64,128]{1,0}) async-start(%cpd), calls=%wrapped_rs
  ROOT %rsd = f32[64,128]{1,0} async-done(%rss)
)") + R"(
%wrapped_rs (p: f32[64,256]) -> f32[64,128] {
  %p = f32[64,256]{1,0} parameter(0)
  ROOT %rs = f32[64,128]{1,0} reduce-scatter(%p), channel_id=4, replica_groups={{0,2},{1,3}}, dimensions={1}, use_global_device_ids=true, to_apply=%add
}
)",
                             pod)
                     .workload;
  ASSERT_EQ(w.operations.size(), 4u);
  EXPECT_EQ(collective_of(w, "ars").axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(collective_of(w, "ags").bytes, 131072u);
  EXPECT_EQ(collective_of(w, "ags").axes, std::vector<std::string>{"x"});
  const auto& cp = collective_of(w, "cps");
  EXPECT_EQ(cp.kind, CollectiveKind::kPermute);
  EXPECT_EQ(cp.axes, std::vector<std::string>{"x"});
  EXPECT_EQ(cp.shift, 1);
  EXPECT_TRUE(cp.cyclic);  // x is a line of 2; the pairs wrap
  EXPECT_EQ(cp.bytes, 65536u);
  EXPECT_EQ(collective_of(w, "rss").kind, CollectiveKind::kReduceScatter);
  EXPECT_EQ(collective_of(w, "rss").axes, std::vector<std::string>{"y"});
  // Each waits for the previous one's done.
  EXPECT_EQ(op(w, "ags").after, std::vector<size_t>{0});
  EXPECT_EQ(op(w, "rss").after, (std::vector<size_t>{0, 1, 2}));  // every done before it
}

TEST_F(HloCollectivesTest, PermutesAsShiftsOrPairs) {
  // 4 x 2, x a ring: a +1 shift along x on every row is a permute.
  const topo::Pod ring(pod_spec({{"x", 4, true}, {"y", 2, false}}));
  const auto w = import_text(module("num_partitions=8", R"(
  %x = bf16[1024]{0} parameter(0)
  %shift = bf16[1024]{0} collective-permute(%x), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0},{4,5},{5,6},{6,7},{7,4}}
  %line = bf16[1024]{0} collective-permute(%shift), channel_id=2, source_target_pairs={{0,4},{1,5},{2,6},{3,7}}
  ROOT %pairs = bf16[1024]{0} collective-permute(%line), channel_id=3, source_target_pairs={{0,6},{5,1}}
)"),
                             ring)
                     .workload;
  const auto& shift = collective_of(w, "shift");
  EXPECT_EQ(shift.kind, CollectiveKind::kPermute);
  EXPECT_EQ(shift.axes, std::vector<std::string>{"x"});
  EXPECT_EQ(shift.shift, 1);
  EXPECT_FALSE(shift.cyclic);
  EXPECT_EQ(shift.bytes, 2048u);
  // Along the line y, the chips with a neighbour +1 send: a plain shift.
  const auto& line = collective_of(w, "line");
  EXPECT_EQ(line.axes, std::vector<std::string>{"y"});
  EXPECT_EQ(line.shift, 1);
  EXPECT_FALSE(line.cyclic);
  const auto& pairs = collective_of(w, "pairs");
  EXPECT_EQ(pairs.kind, CollectiveKind::kSend);
  ASSERT_EQ(pairs.pairs.size(), 2u);
  EXPECT_EQ(pairs.pairs[0].src.coords, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(pairs.pairs[0].dst.coords, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(pairs.pairs[1].src.coords, (std::vector<uint32_t>{1, 1}));
  EXPECT_EQ(pairs.pairs[1].dst.coords, (std::vector<uint32_t>{1, 0}));
  EXPECT_GT(play(ring, w).makespan, sim::Time());
}

TEST_F(HloCollectivesTest, GroupModesAndDeviceAssignment) {
  // Cross-replica (no channel_id): replica ids, here the devices.
  const auto cross_replica = import_text(module("replica_count=4", R"(
  %x = f32[1024]{0} parameter(0)
  ROOT %ar = f32[1024]{0} all-reduce(%x), replica_groups={{0,1},{2,3}}, to_apply=%add
)"),
                                         pod)
                                 .workload;
  EXPECT_EQ(collective_of(cross_replica, "ar").axes, std::vector<std::string>{"x"});
  // Cross-partition with two replicas of two partitions: partition groups
  // {0,1} in each replica, devices {0,1} and {2,3}: x.
  const auto cross_partition = import_text(module("replica_count=2, num_partitions=2", R"(
  %x = f32[1024]{0} parameter(0)
  ROOT %a2a = f32[1024]{0} all-to-all(%x), channel_id=1, replica_groups={{0,1}}, dimensions={0}
)"),
                                           pod)
                                   .workload;
  EXPECT_EQ(collective_of(cross_partition, "a2a").axes, std::vector<std::string>{"x"});
  // Device i on chip {0,2,1,3}[i]: devices {0,1} are chips {0,2}, along y.
  ImportOptions swapped;
  swapped.device_to_chip = {0, 2, 1, 3};
  const auto moved = import_text(module("num_partitions=4", R"(
  %x = f32[1024]{0} parameter(0)
  ROOT %ar = f32[1024]{0} all-reduce(%x), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=%add
)"),
                                 pod, swapped)
                         .workload;
  EXPECT_EQ(collective_of(moved, "ar").axes, std::vector<std::string>{"y"});
}

TEST_F(HloCollectivesTest, UnevenBuffersArePaddedToWholeElementsPerChip) {
  // f32[] over 4 chips: 4 bytes padded to one element per chip, 16.
  const auto w = import_text(module("num_partitions=4", R"(
  %x = f32[] parameter(0)
  ROOT %ar = f32[] all-reduce(%x), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
)"),
                             pod)
                     .workload;
  EXPECT_EQ(collective_of(w, "ar").bytes, 16u);
}

TEST_F(HloCollectivesTest, IrregularGroupsAreRefusedByName) {
  const std::string error = import_error(module("num_partitions=4", R"(
  %x = f32[1024]{0} parameter(0)
  ROOT %diag = f32[1024]{0} all-reduce(%x), channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=%add
)"),
                                         pod);
  EXPECT_NE(error.find("test.hlo:12:8"), std::string::npos) << error;
  EXPECT_NE(error.find("%diag"), std::string::npos) << error;
  EXPECT_NE(error.find("{{0,3},{1,2}}"), std::string::npos) << error;
  EXPECT_NE(error.find("whole torus dimensions"), std::string::npos) << error;
  // A group of three on a 2x2 is no set of dimensions either.
  EXPECT_NE(import_error(module("num_partitions=4", R"(
  %x = f32[1024]{0} parameter(0)
  ROOT %odd = f32[1024]{0} all-reduce(%x), channel_id=1, replica_groups={{0,1,2},{3}}, use_global_device_ids=true, to_apply=%add
)"),
                         pod)
                .find("%odd"),
            std::string::npos);
}

TEST_F(HloCollectivesTest, DeviceCountMismatchIsRefused) {
  const std::string error = import_error(module("replica_count=2, num_partitions=4", R"(
  ROOT %x = f32[1024]{0} parameter(0)
)"),
                                         pod);
  EXPECT_NE(error.find("test.hlo"), std::string::npos) << error;
  EXPECT_NE(error.find("2 x 4 devices"), std::string::npos) << error;
  EXPECT_NE(error.find("has 4 chips"), std::string::npos) << error;
  ImportOptions bad;
  bad.device_to_chip = {0, 1, 1, 3};
  EXPECT_NE(
      import_error(module("num_partitions=4", "  ROOT %x = f32[8]{0} parameter(0)\n"), pod, bad)
          .find("earlier device"),
      std::string::npos);
}

}  // namespace
}  // namespace podsim::hlo_import::testing
