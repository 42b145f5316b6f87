// One test per compute-operation rule of docs/inputs.md: every size a cost
// formula needs is >= 1, attention heads divide, a causal attention has no
// more queries than keys, a reduction no more outputs than inputs, enums
// known; the defaults the converter fills in; text and binary agree.
#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "config/workload_loader.h"
#include "test_support.h"
#include "workload_test_support.h"

namespace podsim::config {
namespace {

using ::testing::ElementsAre;
using testing::IsDiagnostic;
using testing::load_workload;
using testing::test_pod;
using testing::valid_workload;
using testing::workload_errors;

// valid_workload() plus operations[2] "c", a compute operation after "ag".
podsim::Workload with_compute(const podsim::Compute& compute) {
  auto w = valid_workload();
  podsim::Operation& op = *w.add_operations();
  op.set_name("c");
  op.add_after("ag");
  *op.mutable_compute() = compute;
  return w;
}

podsim::Compute matmul(uint64_t m, uint64_t k, uint64_t n) {
  podsim::Compute c;
  c.mutable_matmul()->set_m(m);
  c.mutable_matmul()->set_k(k);
  c.mutable_matmul()->set_n(n);
  return c;
}

podsim::Compute attention(uint64_t q_len, uint64_t kv_len, uint64_t heads, uint64_t kv_heads) {
  podsim::Compute c;
  podsim::Attention& a = *c.mutable_attention();
  a.set_phase(podsim::PREFILL);
  a.set_q_len(q_len);
  a.set_kv_len(kv_len);
  a.set_heads(heads);
  a.set_kv_heads(kv_heads);
  a.set_head_dim(128);
  return c;
}

const ComputeOp& compute_op(const WorkloadSpec& spec) {
  return std::get<ComputeOp>(spec.operations.at(2).op);
}

TEST(WorkloadComputeRulesTest, MatmulLoadsWithDefaults) {
  const WorkloadSpec spec = load_workload(with_compute(matmul(8, 4096, 1024)));
  EXPECT_EQ(spec.operations[2].after, (std::vector<size_t>{1}));
  const Matmul expected{.batch = 1,
                        .m = 8,
                        .k = 4096,
                        .n = 1024,
                        .act = DType::kBf16,
                        .weight = DType::kBf16,
                        .acc = DType::kFp32,  // unset accumulator: fp32, not bf16
                        .weights_resident = false};
  EXPECT_EQ(std::get<Matmul>(compute_op(spec)), expected);
}

TEST(WorkloadComputeRulesTest, MatmulSizesMustBePositive) {
  EXPECT_THAT(workload_errors(with_compute(matmul(0, 4096, 1024))),
              ElementsAre(IsDiagnostic("operations[2].compute.matmul.m", "must be >= 1, got 0")));
  EXPECT_THAT(workload_errors(with_compute(matmul(8, 0, 1024))),
              ElementsAre(IsDiagnostic("operations[2].compute.matmul.k", "must be >= 1, got 0")));
  EXPECT_THAT(workload_errors(with_compute(matmul(8, 4096, 0))),
              ElementsAre(IsDiagnostic("operations[2].compute.matmul.n", "must be >= 1, got 0")));
}

TEST(WorkloadComputeRulesTest, DTypesMustBeKnown) {
  auto c = matmul(8, 8, 8);
  c.mutable_matmul()->set_weight_dtype(static_cast<podsim::DType>(42));
  EXPECT_THAT(workload_errors(with_compute(c)),
              ElementsAre(IsDiagnostic("operations[2].compute.matmul.weight_dtype",
                                       "unknown value 42: must be one of")));
}

TEST(WorkloadComputeRulesTest, ComputeNeedsAnOp) {
  EXPECT_THAT(workload_errors(with_compute(podsim::Compute())),
              ElementsAre(IsDiagnostic("operations[2].compute",
                                       "compute has no operation: set one of matmul, attention")));
}

TEST(WorkloadComputeRulesTest, AnOperationIsACollectiveOrACompute) {
  // Text format refuses two members of one oneof; the parser names both.
  const std::string text =
      "name: \"w\"\n"
      "mesh { axes { name: \"a\" dims: \"x\" } }\n"
      "operations {\n"
      "  name: \"o\"\n"
      "  collective { kind: ALL_REDUCE bytes: 64 axes: \"a\" }\n"
      "  compute { copy { bytes: 64 } }\n"
      "}\n";
  const auto errors = workload_errors(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].message, ::testing::HasSubstr("oneof"));
}

TEST(WorkloadComputeRulesTest, AttentionHeadsMustBeAMultipleOfKvHeads) {
  EXPECT_THAT(workload_errors(with_compute(attention(16, 1024, 12, 8))),
              ElementsAre(IsDiagnostic("operations[2].compute.attention.kv_heads",
                                       "must divide heads (12), got 8")));
  EXPECT_THAT(
      workload_errors(with_compute(attention(16, 1024, 12, 0))),
      ElementsAre(IsDiagnostic("operations[2].compute.attention.kv_heads", "must be >= 1, got 0")));
}

TEST(WorkloadComputeRulesTest, CausalAttentionHasNoMoreQueriesThanKeys) {
  EXPECT_THAT(workload_errors(with_compute(attention(2048, 1024, 8, 8))),
              ElementsAre(IsDiagnostic("operations[2].compute.attention.q_len",
                                       "q_len (2048) must be <= kv_len (1024)")));
  // Without the mask any q_len is fine (cross attention).
  auto c = attention(2048, 1024, 8, 8);
  c.mutable_attention()->set_causal(false);
  // A copy: compute_op() refers into the loaded spec, a temporary here.
  const Attention a = std::get<Attention>(compute_op(load_workload(with_compute(c))));
  EXPECT_FALSE(a.causal);
  EXPECT_EQ(a.q_len, 2048u);
}

TEST(WorkloadComputeRulesTest, AttentionNeedsAPhaseAndSizes) {
  auto c = attention(1, 1024, 8, 2);
  c.mutable_attention()->clear_phase();
  c.mutable_attention()->set_head_dim(0);
  EXPECT_THAT(
      workload_errors(with_compute(c)),
      ElementsAre(IsDiagnostic("operations[2].compute.attention.phase",
                               "must be set: one of PREFILL, DECODE"),
                  IsDiagnostic("operations[2].compute.attention.head_dim", "must be >= 1, got 0")));
  c.mutable_attention()->set_phase(podsim::DECODE);
  c.mutable_attention()->set_head_dim(128);
  const Attention expected{.phase = AttentionPhase::kDecode,
                           .batch = 1,
                           .q_len = 1,
                           .kv_len = 1024,
                           .heads = 8,
                           .kv_heads = 2,
                           .head_dim = 128,
                           .act = DType::kBf16,
                           .kv = DType::kBf16,
                           .causal = true};
  EXPECT_EQ(std::get<Attention>(compute_op(load_workload(with_compute(c)))), expected);
}

TEST(WorkloadComputeRulesTest, VectorOpsNeedTheirSizes) {
  podsim::Compute e;
  e.mutable_elementwise()->set_bytes_in(64);
  EXPECT_THAT(workload_errors(with_compute(e)),
              ElementsAre(IsDiagnostic("operations[2].compute.elementwise.elements",
                                       "must be >= 1, got 0")));
  podsim::Compute n;
  n.mutable_norm()->set_rows(4);
  EXPECT_THAT(workload_errors(with_compute(n)),
              ElementsAre(IsDiagnostic("operations[2].compute.norm.width", "must be >= 1, got 0")));
  podsim::Compute emb;
  emb.mutable_embedding()->set_width(4096);
  EXPECT_THAT(
      workload_errors(with_compute(emb)),
      ElementsAre(IsDiagnostic("operations[2].compute.embedding.tokens", "must be >= 1, got 0")));
  podsim::Compute copy;
  copy.mutable_copy();
  EXPECT_THAT(workload_errors(with_compute(copy)),
              ElementsAre(IsDiagnostic("operations[2].compute.copy.bytes", "must be >= 1, got 0")));
}

TEST(WorkloadComputeRulesTest, ReductionHasNoMoreOutputsThanInputs) {
  podsim::Compute r;
  r.mutable_reduction()->set_elements(8);
  r.mutable_reduction()->set_outputs(9);
  EXPECT_THAT(workload_errors(with_compute(r)),
              ElementsAre(IsDiagnostic("operations[2].compute.reduction.outputs",
                                       "must be <= elements (8), got 9")));
  r.mutable_reduction()->clear_outputs();  // 0 means 1: a full reduction
  const Reduction expected{.elements = 8, .outputs = 1, .dtype = DType::kBf16};
  EXPECT_EQ(std::get<Reduction>(compute_op(load_workload(with_compute(r)))), expected);
}

TEST(WorkloadComputeRulesTest, VectorOpDefaults) {
  podsim::Compute e;
  e.mutable_elementwise()->set_elements(10);
  EXPECT_EQ(std::get<Elementwise>(compute_op(load_workload(with_compute(e)))).flops_per_element,
            1u);                                      // unset: 1
  e.mutable_elementwise()->set_flops_per_element(0);  // a cast: 0 is allowed
  EXPECT_EQ(std::get<Elementwise>(compute_op(load_workload(with_compute(e)))).flops_per_element,
            0u);
  podsim::Compute n;
  n.mutable_norm()->set_rows(4);
  n.mutable_norm()->set_width(8);
  EXPECT_EQ(std::get<Norm>(compute_op(load_workload(with_compute(n)))).kind, NormKind::kRms);
  n.mutable_norm()->set_kind(podsim::LAYER_NORM);
  n.mutable_norm()->set_dtype(podsim::FP32);
  const Norm expected{.kind = NormKind::kLayer, .rows = 4, .width = 8, .dtype = DType::kFp32};
  EXPECT_EQ(std::get<Norm>(compute_op(load_workload(with_compute(n)))), expected);
}

TEST(WorkloadComputeRulesTest, TextAndBinaryGiveEqualSpecs) {
  podsim::Compute c;
  podsim::Matmul& m = *c.mutable_matmul();
  m.set_batch(3);
  m.set_m(5);
  m.set_k(7);
  m.set_n(11);
  m.set_activation_dtype(podsim::FP8);
  m.set_weight_dtype(podsim::INT4);
  m.set_accumulator_dtype(podsim::BF16);
  m.set_weights_resident(true);
  const auto w = with_compute(c);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(w, &text));
  WorkloadSpec from_text = parse_workload_text(text, "w.textproto", test_pod());
  const WorkloadSpec from_binary = parse_workload_binary(w.SerializeAsString(), "w.pb", test_pod());
  from_text.source_file = from_binary.source_file;
  EXPECT_NE(from_text.source_sha256, from_binary.source_sha256);  // of different bytes
  from_text.source_sha256 = from_binary.source_sha256;
  EXPECT_EQ(from_text, from_binary);
  const Matmul expected{.batch = 3,
                        .m = 5,
                        .k = 7,
                        .n = 11,
                        .act = DType::kFp8,
                        .weight = DType::kInt4,
                        .acc = DType::kBf16,
                        .weights_resident = true};
  EXPECT_EQ(std::get<Matmul>(compute_op(from_binary)), expected);
}

}  // namespace
}  // namespace podsim::config
