#include "config/internal/compute_validator.h"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "config/internal/enum_values.h"
#include "podsim/workload.pb.h"

namespace podsim::config::internal {
namespace {

bool known_dtype(int value, const FieldPath& path, IssueList& issues) {
  return known_value(*podsim::DType_descriptor(), value, path, issues);
}

// The product of `factors` (named in `what`, e.g. "batch x m x k") must be
// at most kMaxOperandElements; computed without overflow.
void operand_within_limit(const FieldPath& path, std::initializer_list<uint64_t> factors,
                          const char* what, IssueList& issues) {
  uint64_t product = 1;
  bool overflow = false;
  for (const uint64_t f : factors)
    overflow = overflow || __builtin_mul_overflow(product, std::max<uint64_t>(f, 1), &product);
  if (overflow || product > kMaxOperandElements) {
    issues.add(path, std::string(what) + " = " +
                         (overflow ? std::string("2^64 or more") : std::to_string(product)) +
                         " elements, more than the limit of 2^48 (" +
                         std::to_string(kMaxOperandElements) + ") per operand");
  }
}

void bytes_within_limit(const FieldPath& path, uint64_t bytes, IssueList& issues) {
  if (bytes > kMaxOperationBytes) {
    issues.add(path, std::to_string(bytes) + " bytes, more than the limit of 2^56 (" +
                         std::to_string(kMaxOperationBytes) + ")");
  }
}

void check_matmul(const podsim::Matmul& mm, const FieldPath& path, IssueList& issues) {
  issues.at_least(path("m"), mm.m(), 1);
  issues.at_least(path("k"), mm.k(), 1);
  issues.at_least(path("n"), mm.n(), 1);
  operand_within_limit(path("m"), {mm.batch(), mm.m(), mm.k()}, "batch x m x k", issues);
  operand_within_limit(path("n"), {mm.batch(), mm.k(), mm.n()}, "batch x k x n", issues);
  operand_within_limit(path("m"), {mm.batch(), mm.m(), mm.n()}, "batch x m x n", issues);
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
  operand_within_limit(path("q_len"), {at.batch(), at.q_len(), at.heads(), at.head_dim()},
                       "batch x q_len x heads x head_dim", issues);
  operand_within_limit(path("kv_len"), {at.batch(), at.kv_len(), at.kv_heads(), at.head_dim()},
                       "batch x kv_len x kv_heads x head_dim", issues);
  operand_within_limit(path("kv_len"), {at.batch(), at.heads(), at.q_len(), at.kv_len()},
                       "batch x heads x q_len x kv_len (the scores)", issues);
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
  operand_within_limit(path("elements"), {r.elements()}, "elements", issues);
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
    case podsim::Compute::kElementwise: {
      const FieldPath p = path("elementwise");
      const podsim::Elementwise& e = compute.elementwise();
      issues.at_least(p("elements"), e.elements(), 1);
      operand_within_limit(p("elements"), {e.elements()}, "elements", issues);
      bytes_within_limit(p("bytes_in"), e.bytes_in(), issues);
      bytes_within_limit(p("bytes_out"), e.bytes_out(), issues);
      return;
    }
    case podsim::Compute::kNorm: {
      const FieldPath p = path("norm");
      known_value(*podsim::NormKind_descriptor(), compute.norm().kind(), p("kind"), issues);
      issues.at_least(p("rows"), compute.norm().rows(), 1);
      issues.at_least(p("width"), compute.norm().width(), 1);
      operand_within_limit(p("rows"), {compute.norm().rows(), compute.norm().width()},
                           "rows x width", issues);
      known_dtype(compute.norm().dtype(), p("dtype"), issues);
      return;
    }
    case podsim::Compute::kEmbedding: {
      const FieldPath p = path("embedding");
      issues.at_least(p("tokens"), compute.embedding().tokens(), 1);
      issues.at_least(p("width"), compute.embedding().width(), 1);
      operand_within_limit(p("tokens"), {compute.embedding().tokens(), compute.embedding().width()},
                           "tokens x width", issues);
      known_dtype(compute.embedding().dtype(), p("dtype"), issues);
      return;
    }
    case podsim::Compute::kCopy:
      issues.at_least(path("copy")("bytes"), compute.copy().bytes(), 1);
      bytes_within_limit(path("copy")("bytes"), compute.copy().bytes(), issues);
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
