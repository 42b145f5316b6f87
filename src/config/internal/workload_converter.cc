#include "config/internal/workload_converter.h"

#include <algorithm>
#include <cassert>
#include <map>

#include "config/internal/serving_converter.h"
#include "config/internal/workload_mesh.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {

DType to_dtype(podsim::DType d) {
  switch (d) {
    case podsim::FP32:
      return DType::kFp32;
    case podsim::FP8:
      return DType::kFp8;
    case podsim::INT8:
      return DType::kInt8;
    case podsim::INT4:
      return DType::kInt4;
    default:  // BF16 and unset
      return DType::kBf16;
  }
}

namespace {

CollectiveKind to_kind(podsim::CollectiveKind k) {
  switch (k) {
    case podsim::ALL_GATHER:
      return CollectiveKind::kAllGather;
    case podsim::REDUCE_SCATTER:
      return CollectiveKind::kReduceScatter;
    case podsim::ALL_TO_ALL:
      return CollectiveKind::kAllToAll;
    case podsim::BROADCAST:
      return CollectiveKind::kBroadcast;
    case podsim::COLLECTIVE_PERMUTE:
      return CollectiveKind::kPermute;
    case podsim::SEND:
      return CollectiveKind::kSend;
    default:  // ALL_REDUCE; validation rejected unset and unknown kinds
      assert(k == podsim::ALL_REDUCE);
      return CollectiveKind::kAllReduce;
  }
}

CollectiveAlgorithm to_algorithm(podsim::CollectiveAlgorithm a) {
  switch (a) {
    case podsim::BIDIRECTIONAL_RING:
      return CollectiveAlgorithm::kBidirectionalRing;
    case podsim::UNIDIRECTIONAL_RING:
      return CollectiveAlgorithm::kUnidirectionalRing;
    case podsim::SEQUENTIAL_AXES:
      return CollectiveAlgorithm::kSequentialAxes;
    case podsim::DIRECT:
      return CollectiveAlgorithm::kDirect;
    case podsim::SNAKE_RING:
      return CollectiveAlgorithm::kSnakeRing;
    default:  // ALGORITHM_AUTO
      return CollectiveAlgorithm::kAuto;
  }
}

CollectiveSpec to_collective_spec(const Collective& c) {
  CollectiveSpec spec;
  spec.kind = to_kind(c.kind());
  spec.bytes = c.bytes();
  spec.axes.assign(c.axes().begin(), c.axes().end());
  spec.dtype = to_dtype(c.dtype());
  spec.algorithm = to_algorithm(c.algorithm());
  spec.root = c.root();
  spec.shift = c.shift();
  spec.compute_reduction = c.compute_reduction();
  for (const podsim::ChipPair& p : c.pairs()) {
    spec.pairs.push_back({{p.src().slice(), {p.src().coords().begin(), p.src().coords().end()}},
                          {p.dst().slice(), {p.dst().coords().begin(), p.dst().coords().end()}}});
  }
  return spec;
}

DType accumulator_dtype(podsim::DType d) {
  return d == podsim::DTYPE_UNSPECIFIED ? DType::kFp32 : to_dtype(d);
}

Matmul to_matmul(const podsim::Matmul& m) {
  return Matmul{.batch = std::max<uint64_t>(m.batch(), 1),
                .m = m.m(),
                .k = m.k(),
                .n = m.n(),
                .act = to_dtype(m.activation_dtype()),
                .weight = to_dtype(m.weight_dtype()),
                .acc = accumulator_dtype(m.accumulator_dtype()),
                .weights_resident = m.weights_resident()};
}

Attention to_attention(const podsim::Attention& a) {
  return Attention{
      .phase = a.phase() == podsim::DECODE ? AttentionPhase::kDecode : AttentionPhase::kPrefill,
      .batch = std::max<uint64_t>(a.batch(), 1),
      .q_len = a.q_len(),
      .kv_len = a.kv_len(),
      .heads = a.heads(),
      .kv_heads = a.kv_heads(),
      .head_dim = a.head_dim(),
      .act = to_dtype(a.activation_dtype()),
      .kv = to_dtype(a.kv_dtype()),
      .causal = !a.has_causal() || a.causal()};
}

ComputeOp to_compute_op(const podsim::Compute& c) {
  switch (c.op_case()) {
    case podsim::Compute::kMatmul:
      return to_matmul(c.matmul());
    case podsim::Compute::kAttention:
      return to_attention(c.attention());
    case podsim::Compute::kElementwise: {
      const podsim::Elementwise& e = c.elementwise();
      return Elementwise{.elements = e.elements(),
                         .flops_per_element = e.has_flops_per_element() ? e.flops_per_element() : 1,
                         .bytes_in = e.bytes_in(),
                         .bytes_out = e.bytes_out()};
    }
    case podsim::Compute::kNorm:
      return Norm{.kind = c.norm().kind() == podsim::LAYER_NORM ? NormKind::kLayer : NormKind::kRms,
                  .rows = c.norm().rows(),
                  .width = c.norm().width(),
                  .dtype = to_dtype(c.norm().dtype())};
    case podsim::Compute::kEmbedding:
      return Embedding{.tokens = c.embedding().tokens(),
                       .width = c.embedding().width(),
                       .vocab = c.embedding().vocab(),
                       .dtype = to_dtype(c.embedding().dtype())};
    case podsim::Compute::kReduction:
      return Reduction{.elements = c.reduction().elements(),
                       .outputs = std::max<uint64_t>(c.reduction().outputs(), 1),
                       .dtype = to_dtype(c.reduction().dtype())};
    default:  // kCopy; validation rejected OP_NOT_SET
      assert(c.op_case() == podsim::Compute::kCopy);
      return Copy{.bytes = c.copy().bytes()};
  }
}

}  // namespace

WorkloadSpec to_workload_spec(const Workload& workload, const PodSpec& pod,
                              std::string source_file) {
  WorkloadSpec spec;
  spec.name = workload.name();
  spec.description = workload.description();
  spec.source_file = std::move(source_file);
  IssueList none;  // validated already
  const ResolvedMesh mesh(workload.mesh(), pod, FieldPath()("mesh"), none);
  assert(none.empty());
  for (const ResolvedAxis& axis : mesh.axes())
    spec.mesh.push_back(MeshAxisDecl{axis.name, axis.dims});
  std::map<std::string, size_t> index_of;
  for (const Operation& op : workload.operations()) {
    OperationSpec o;
    o.name = op.name();
    for (const std::string& name : op.after())
      o.after.push_back(index_of.at(name));
    o.repeat = op.repeat() == 0 ? 1 : op.repeat();
    if (op.has_compute()) {
      o.op = to_compute_op(op.compute());
    } else {
      o.op = to_collective_spec(op.collective());
    }
    index_of.emplace(o.name, spec.operations.size());
    spec.operations.push_back(std::move(o));
  }
  if (workload.has_model())
    spec.serving = to_serving_spec(workload);
  return spec;
}

}  // namespace podsim::config::internal
