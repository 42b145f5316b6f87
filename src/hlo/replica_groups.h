// Collective groups: the `replica_groups` attribute in its two forms, its
// expansion into explicit groups, and what the ids in a group mean
// (docs/hlo.md, "Collective groups").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace podsim::hlo {

// The largest number of ids a replica_groups attribute may name (iota form:
// G x S; explicit form: the ids written). A pod has at most 2^20 chips.
inline constexpr int64_t kMaxGroupIds = int64_t{1} << 22;

// `replica_groups={{0,1},{2,3}}` (explicit; `{}` is no groups: every id in
// one group) or `replica_groups=[G,S]<=[d0,d1,...]T(p0,p1,...)` (iota form,
// XLA's IotaReplicaGroupList: G groups of S ids).
struct ReplicaGroups {
  bool iota = false;
  std::vector<std::vector<int64_t>> explicit_groups;  // explicit form
  int64_t group_count = 0;                            // iota form: G
  int64_t group_size = 0;                             // iota form: S
  std::vector<int64_t> reshape_dims;                  // iota form: d (product G x S)
  std::vector<int64_t> transpose_perm;                // iota form: p (identity if absent)

  bool empty() const { return !iota && explicit_groups.empty(); }
};

// The groups as explicit lists of ids. The iota form is expanded as XLA
// does: iota(d0*d1*...) reshaped to reshape_dims, transposed by
// transpose_perm, flattened and cut into G rows of S. O(G x S).
std::vector<std::vector<int64_t>> expand_groups(const ReplicaGroups& groups);

// XLA's CollectiveOpGroupMode: how the ids of a group are to be read.
enum class GroupMode : uint8_t {
  kCrossReplica,    // no channel_id: replica ids, within each partition
  kCrossPartition,  // channel_id, no use_global_device_ids field: partition ids, within each
                    // replica
  kCrossReplicaAndPartition,  // channel_id, use_global_device_ids=false: replica ids, across all
                              // partitions
  kFlattenedId,               // channel_id, use_global_device_ids=true: global device ids
};

// XLA's GetCollectiveOpGroupMode. `use_global_device_ids` is nullopt for an
// opcode without the field (has_use_global_device_ids_field). nullopt result:
// use_global_device_ids=true without a channel_id, which XLA refuses.
std::optional<GroupMode> group_mode(bool has_channel_id, std::optional<bool> use_global_device_ids);

// The groups of global device ids (replica * partitions + partition, XLA's
// flattened id) that run the collective together, for a module of
// `replicas` x `partitions` devices. Empty groups mean all ids of the mode's
// kind. Ids outside their range give nullopt (as XLA's verifier refuses
// them). O(replicas x partitions).
std::optional<std::vector<std::vector<int64_t>>> device_groups(const ReplicaGroups& groups,
                                                               GroupMode mode, int64_t replicas,
                                                               int64_t partitions);

}  // namespace podsim::hlo
