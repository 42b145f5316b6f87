// Iota replica groups expanded as XLA's IotaReplicaGroupList, and the four
// group modes turned into global device ids, against hand expansions.
#include "hlo/replica_groups.h"

#include <gtest/gtest.h>

#include "hlo/opcode.h"

namespace podsim::hlo {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

ReplicaGroups iota(int64_t g, int64_t s, std::vector<int64_t> dims, std::vector<int64_t> perm) {
  ReplicaGroups r;
  r.iota = true;
  r.group_count = g;
  r.group_size = s;
  r.reshape_dims = std::move(dims);
  r.transpose_perm = std::move(perm);
  return r;
}

TEST(HloReplicaGroups, IotaWithoutTransposeIsRowsOfTheIota) {
  // [2,4]<=[8]: iota 0..7 cut into 2 rows of 4.
  EXPECT_EQ(expand_groups(iota(2, 4, {8}, {})), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(HloReplicaGroups, IotaWithTranspose) {
  // [2,4]<=[4,2]T(1,0): iota(8) as 4x2 = [[0,1],[2,3],[4,5],[6,7]];
  // transposed 2x4 = [[0,2,4,6],[1,3,5,7]]; flattened and cut into 2 rows.
  EXPECT_EQ(expand_groups(iota(2, 4, {4, 2}, {1, 0})), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  // [4,2]<=[2,2,2]T(2,1,0): iota as 2x2x2, element [a][b][c] = 4a+2b+c;
  // transposed [c][b][a] in row-major order: c=0: 0,4,2,6; c=1: 1,5,3,7;
  // cut into 4 rows of 2.
  EXPECT_EQ(expand_groups(iota(4, 2, {2, 2, 2}, {2, 1, 0})),
            (Groups{{0, 4}, {2, 6}, {1, 5}, {3, 7}}));
  // [2,4]<=[2,4]T(1,0) with a non-square reshape: iota as 2x4 =
  // [[0,1,2,3],[4,5,6,7]], transposed 4x2 = [[0,4],[1,5],[2,6],[3,7]]:
  // flattened 0,4,1,5,2,6,3,7.
  EXPECT_EQ(expand_groups(iota(2, 4, {2, 4}, {1, 0})), (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
}

TEST(HloReplicaGroups, GroupModesFollowXla) {
  EXPECT_EQ(group_mode(false, std::nullopt), GroupMode::kCrossReplica);
  EXPECT_EQ(group_mode(false, false), GroupMode::kCrossReplica);
  EXPECT_EQ(group_mode(false, true), std::nullopt);  // XLA refuses it
  EXPECT_EQ(group_mode(true, std::nullopt), GroupMode::kCrossPartition);
  EXPECT_EQ(group_mode(true, false), GroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(group_mode(true, true), GroupMode::kFlattenedId);
  EXPECT_TRUE(has_use_global_device_ids_field(Opcode::kAllReduce));
  EXPECT_FALSE(has_use_global_device_ids_field(Opcode::kAllToAll));
  EXPECT_FALSE(has_use_global_device_ids_field(Opcode::kCollectivePermute));
}

TEST(HloReplicaGroups, DeviceGroupsInEachMode) {
  // 2 replicas x 3 partitions: device id = replica * 3 + partition.
  ReplicaGroups replicas;
  replicas.explicit_groups = {{0, 1}};
  // Cross-replica: replicas {0,1} of each partition p: {p, 3+p}.
  EXPECT_EQ(device_groups(replicas, GroupMode::kCrossReplica, 2, 3),
            (Groups{{0, 3}, {1, 4}, {2, 5}}));
  // Cross-replica-and-partition: replicas {0,1} with every partition: one group.
  EXPECT_EQ(device_groups(replicas, GroupMode::kCrossReplicaAndPartition, 2, 3),
            (Groups{{0, 1, 2, 3, 4, 5}}));
  ReplicaGroups partitions;
  partitions.explicit_groups = {{0, 2}, {1}};
  // Cross-partition: within replica r, partitions {0,2} and {1}: {3r, 3r+2}, {3r+1}.
  EXPECT_EQ(device_groups(partitions, GroupMode::kCrossPartition, 2, 3),
            (Groups{{0, 2}, {1}, {3, 5}, {4}}));
  // Flattened ids are device ids already.
  EXPECT_EQ(device_groups(partitions, GroupMode::kFlattenedId, 2, 3), (Groups{{0, 2}, {1}}));
  // Empty groups: every id of the mode's kind.
  EXPECT_EQ(device_groups(ReplicaGroups{}, GroupMode::kCrossPartition, 2, 3),
            (Groups{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(device_groups(ReplicaGroups{}, GroupMode::kFlattenedId, 2, 3),
            (Groups{{0, 1, 2, 3, 4, 5}}));
  // An id beyond the count: refused.
  EXPECT_EQ(device_groups(partitions, GroupMode::kCrossPartition, 2, 2), std::nullopt);
  // The real LLaMA module's [1,4]<=[4], flattened, on its 1 x 4 devices.
  EXPECT_EQ(device_groups(iota(1, 4, {4}, {}), GroupMode::kFlattenedId, 1, 4),
            (Groups{{0, 1, 2, 3}}));
}

}  // namespace
}  // namespace podsim::hlo
