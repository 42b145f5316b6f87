#include "hlo/replica_groups.h"

#include <numeric>

namespace podsim::hlo {

std::vector<std::vector<int64_t>> expand_groups(const ReplicaGroups& groups) {
  if (!groups.iota) {
    return groups.explicit_groups;
  }
  const std::vector<int64_t>& dims = groups.reshape_dims;
  const size_t rank = dims.size();
  std::vector<int64_t> perm = groups.transpose_perm;
  if (perm.empty()) {
    perm.resize(rank);
    std::iota(perm.begin(), perm.end(), 0);
  }
  // Strides of the row-major iota array of shape `dims`.
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) {
    stride[i - 1] = stride[i] * dims[i];
  }
  // Walk the transposed array (shape dims[perm[k]]) in row-major order: the
  // element at transposed index t is iota's element at index t permuted back,
  // whose value is its own flat offset.
  std::vector<int64_t> flat;
  flat.reserve(static_cast<size_t>(groups.group_count * groups.group_size));
  std::vector<int64_t> index(rank, 0);
  const int64_t total = groups.group_count * groups.group_size;
  for (int64_t n = 0; n < total; ++n) {
    int64_t value = 0;
    for (size_t k = 0; k < rank; ++k) {
      value += index[k] * stride[static_cast<size_t>(perm[k])];
    }
    flat.push_back(value);
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < dims[static_cast<size_t>(perm[k])]) {
        break;
      }
      index[k] = 0;
    }
  }
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(groups.group_count));
  for (int64_t g = 0; g < groups.group_count; ++g) {
    out[static_cast<size_t>(g)].assign(flat.begin() + g * groups.group_size,
                                       flat.begin() + (g + 1) * groups.group_size);
  }
  return out;
}

std::optional<GroupMode> group_mode(bool has_channel_id,
                                    std::optional<bool> use_global_device_ids) {
  if (!has_channel_id) {
    if (use_global_device_ids.value_or(false)) {
      return std::nullopt;
    }
    return GroupMode::kCrossReplica;
  }
  if (!use_global_device_ids.has_value()) {
    return GroupMode::kCrossPartition;
  }
  return *use_global_device_ids ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

namespace {

std::vector<int64_t> all_ids(int64_t n) {
  std::vector<int64_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

bool ids_below(const std::vector<std::vector<int64_t>>& groups, int64_t limit) {
  for (const auto& g : groups) {
    for (const int64_t id : g) {
      if (id < 0 || id >= limit) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> device_groups(const ReplicaGroups& groups,
                                                               GroupMode mode, int64_t replicas,
                                                               int64_t partitions) {
  if (replicas < 1 || partitions < 1 || replicas > kMaxGroupIds || partitions > kMaxGroupIds ||
      replicas * partitions > kMaxGroupIds) {
    return std::nullopt;
  }
  std::vector<std::vector<int64_t>> ids = expand_groups(groups);
  std::vector<std::vector<int64_t>> out;
  switch (mode) {
    case GroupMode::kCrossReplica:
      // One set of groups per partition: replica r of partition p is r*P + p.
      if (ids.empty()) {
        ids.push_back(all_ids(replicas));
      }
      if (!ids_below(ids, replicas)) {
        return std::nullopt;
      }
      for (int64_t p = 0; p < partitions; ++p) {
        for (const auto& g : ids) {
          std::vector<int64_t>& row = out.emplace_back();
          for (const int64_t r : g) {
            row.push_back(r * partitions + p);
          }
        }
      }
      return out;
    case GroupMode::kCrossPartition:
      if (ids.empty()) {
        ids.push_back(all_ids(partitions));
      }
      if (!ids_below(ids, partitions)) {
        return std::nullopt;
      }
      for (int64_t r = 0; r < replicas; ++r) {
        for (const auto& g : ids) {
          std::vector<int64_t>& row = out.emplace_back();
          for (const int64_t p : g) {
            row.push_back(r * partitions + p);
          }
        }
      }
      return out;
    case GroupMode::kCrossReplicaAndPartition:
      // A group of replicas, each with every partition of it.
      if (ids.empty()) {
        ids.push_back(all_ids(replicas));
      }
      if (!ids_below(ids, replicas)) {
        return std::nullopt;
      }
      for (const auto& g : ids) {
        std::vector<int64_t>& row = out.emplace_back();
        for (const int64_t r : g) {
          for (int64_t p = 0; p < partitions; ++p) {
            row.push_back(r * partitions + p);
          }
        }
      }
      return out;
    case GroupMode::kFlattenedId:
      if (ids.empty()) {
        ids.push_back(all_ids(replicas * partitions));
      }
      if (!ids_below(ids, replicas * partitions)) {
        return std::nullopt;
      }
      return ids;
  }
  return std::nullopt;
}

}  // namespace podsim::hlo
