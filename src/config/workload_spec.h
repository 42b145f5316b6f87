// Validated, typed description of a workload (proto/podsim/workload.proto):
// the device mesh and the operations to run on it. Produced by
// load_workload_file() against a pod, so every mesh axis, dimension and size
// here is already known to fit that pod.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/compute_ops.h"
#include "config/dtype.h"
#include "config/serving_spec.h"

namespace podsim::config {

// The dimension index that stands for "the slices" (the DCN dimension); equal
// to topo::kSliceDim (topo asserts it).
inline constexpr uint32_t kSliceDimIndex = std::numeric_limits<uint32_t>::max();
// The name a mesh axis uses for the slices; no torus dimension may take it.
inline constexpr std::string_view kSliceDimName = "slice";

struct MeshAxisDecl {
  std::string name;
  std::vector<uint32_t> dims;  // torus dimension indices, or kSliceDimIndex

  friend bool operator==(const MeshAxisDecl&, const MeshAxisDecl&) = default;
};

enum class CollectiveKind {
  kAllGather,
  kReduceScatter,
  kAllReduce,
  kAllToAll,
  kBroadcast,
  kPermute,
  kSend,  // point-to-point, between explicit pairs of chips
};

enum class CollectiveAlgorithm {
  kAuto,                // what a TPU does
  kBidirectionalRing,   // force both directions on every axis
  kUnidirectionalRing,  // one direction only
  kSequentialAxes,      // several axes one after another with the whole buffer
  kDirect,              // all-to-all: every pair directly along its route
  kSnakeRing,           // a multi-dimension axis as one ring over its snake order
};

// A chip by its place in the pod: the slice and one coordinate per torus
// dimension (validated against the pod).
struct ChipCoords {
  uint32_t slice = 0;
  std::vector<uint32_t> coords;

  friend bool operator==(const ChipCoords&, const ChipCoords&) = default;
};

struct ChipPair {
  ChipCoords src;
  ChipCoords dst;

  friend bool operator==(const ChipPair&, const ChipPair&) = default;
};

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t bytes = 0;             // V, see workload.proto
  std::vector<std::string> axes;  // mesh axis names, non-empty (empty for kSend)
  DType dtype = DType::kBf16;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto;
  uint32_t root = 0;  // broadcast
  int32_t shift = 0;  // permute
  // Permute: the shift wraps around the group even where its dimensions do
  // not (lines, or groups over several dimensions), the last members'
  // transfers routed back across the group by the pod's routes, as XLA's
  // collective-permute cycle of a looped collective matmul is. Set by the
  // workload layer only (workload.proto has no such field).
  bool cyclic = false;
  bool compute_reduction = false;
  std::vector<ChipPair> pairs;  // send: each moves `bytes`

  friend bool operator==(const CollectiveSpec&, const CollectiveSpec&) = default;
};

struct OperationSpec {
  std::string name;
  std::vector<size_t> after;  // indices of earlier operations
  uint32_t repeat = 1;
  // A collective over mesh axes, or a compute operation every chip runs
  // (SPMD; compute_ops.h).
  std::variant<CollectiveSpec, ComputeOp> op;
  // Where the operation came from, for traces: an imported HLO
  // instruction's metadata op_name; empty for a workload file.
  std::string op_name = {};

  friend bool operator==(const OperationSpec&, const OperationSpec&) = default;
};

// A range of operations played `iterations` times (an imported HLO while
// loop, src/hlo_import/): operations [first, end) of the list run, and when
// every one of them has finished, all of them run again, until the last
// iteration. An operation inside the range that waits for one outside it
// waits once; an operation outside that waits for one inside waits for the
// last iteration. Loops nest (an inner range lies wholly inside an outer
// one) and never overlap otherwise. engine/op_list_loops.h plays them.
struct LoopSpec {
  std::string name;
  size_t first = 0;
  size_t end = 0;           // one past the last operation; end > first
  uint32_t iterations = 1;  // >= 1

  friend bool operator==(const LoopSpec&, const LoopSpec&) = default;
};

struct WorkloadSpec {
  std::string name;
  std::string description;
  std::string source_file;
  std::vector<std::string> overrides;  // "path=value" of each --set applied to this input, in order
  std::string source_sha256;  // hex SHA-256 of the input's bytes (the file, or the embedded text)
  std::vector<MeshAxisDecl> mesh;
  // Exactly one of the two forms: a list of operations, or a serving step.
  std::vector<OperationSpec> operations;
  std::optional<ServingSpec> serving;
  // Ranges of `operations` played several times (HLO while loops); none for
  // a workload file.
  std::vector<LoopSpec> loops;

  friend bool operator==(const WorkloadSpec&, const WorkloadSpec&) = default;
};

}  // namespace podsim::config
