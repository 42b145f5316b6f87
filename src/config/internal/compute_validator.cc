#include "config/internal/compute_validator.h"

#include <string>

#include "config/internal/enum_values.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

bool known_dtype(int value, const FieldPath& path, IssueList& issues) {
  return known_value(*podsim::DType_descriptor(), value, path, issues);
}

void check_matmul(const podsim::Matmul& mm, const FieldPath& path, IssueList& issues) {
  issues.at_least(path("m"), mm.m(), 1);
  issues.at_least(path("k"), mm.k(), 1);
  issues.at_least(path("n"), mm.n(), 1);
  known_dtype(mm.activation_dtype(), path("activation_dtype"), issues);
  known_dtype(mm.weight_dtype(), path("weight_dtype"), issues);
  known_dtype(mm.accumulator_dtype(), path("accumulator_dtype"), issues);
}

void check_attention(const podsim::Attention& at, const FieldPath& path, IssueList& issues) {
  set_and_known(*podsim::Phase_descriptor(), at.phase(), path("phase"), issues);
  const bool q_ok = issues.at_least(path("q_len"), at.q_len(), 1);
  const bool kv_ok = issues.at_least(path("kv_len"), at.kv_len(), 1);
  const bool heads_ok = issues.at_least(path("heads"), at.heads(), 1);
  const bool kv_heads_ok = issues.at_least(path("kv_heads"), at.kv_heads(), 1);
  issues.at_least(path("head_dim"), at.head_dim(), 1);
  if (heads_ok && kv_heads_ok && at.heads() % at.kv_heads() != 0) {
    issues.add(path("kv_heads"), "must divide heads (" + std::to_string(at.heads()) + "), got " +
                                     std::to_string(at.kv_heads()));
  }
  const bool causal = !at.has_causal() || at.causal();
  if (causal && q_ok && kv_ok && at.q_len() > at.kv_len()) {
    issues.add(path("q_len"),
               "a causal attention's queries are the last q_len of the kv_len "
               "positions: q_len (" +
                   std::to_string(at.q_len()) + ") must be <= kv_len (" +
                   std::to_string(at.kv_len()) + ")");
  }
  known_dtype(at.activation_dtype(), path("activation_dtype"), issues);
  known_dtype(at.kv_dtype(), path("kv_dtype"), issues);
}

void check_reduction(const podsim::Reduction& r, const FieldPath& path, IssueList& issues) {
  const bool elements_ok = issues.at_least(path("elements"), r.elements(), 1);
  if (elements_ok && r.outputs() > r.elements()) {
    issues.add(path("outputs"), "must be <= elements (" + std::to_string(r.elements()) + "), got " +
                                    std::to_string(r.outputs()));
  }
  known_dtype(r.dtype(), path("dtype"), issues);
}

}  // namespace

void validate_compute(const podsim::Compute& compute, const FieldPath& path, IssueList& issues) {
  switch (compute.op_case()) {
    case podsim::Compute::kMatmul:
      check_matmul(compute.matmul(), path("matmul"), issues);
      return;
    case podsim::Compute::kAttention:
      check_attention(compute.attention(), path("attention"), issues);
      return;
    case podsim::Compute::kElementwise:
      issues.at_least(path("elementwise")("elements"), compute.elementwise().elements(), 1);
      return;
    case podsim::Compute::kNorm: {
      const FieldPath p = path("norm");
      known_value(*podsim::NormKind_descriptor(), compute.norm().kind(), p("kind"), issues);
      issues.at_least(p("rows"), compute.norm().rows(), 1);
      issues.at_least(p("width"), compute.norm().width(), 1);
      known_dtype(compute.norm().dtype(), p("dtype"), issues);
      return;
    }
    case podsim::Compute::kEmbedding: {
      const FieldPath p = path("embedding");
      issues.at_least(p("tokens"), compute.embedding().tokens(), 1);
      issues.at_least(p("width"), compute.embedding().width(), 1);
      known_dtype(compute.embedding().dtype(), p("dtype"), issues);
      return;
    }
    case podsim::Compute::kCopy:
      issues.at_least(path("copy")("bytes"), compute.copy().bytes(), 1);
      return;
    case podsim::Compute::kReduction:
      check_reduction(compute.reduction(), path("reduction"), issues);
      return;
    case podsim::Compute::OP_NOT_SET:
      break;
  }
  issues.add(path,
             "compute has no operation: set one of matmul, attention, elementwise, norm, "
             "embedding, copy, reduction");
}

}  // namespace podsim::config::internal
