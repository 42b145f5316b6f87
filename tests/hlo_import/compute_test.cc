// Costing (src/hlo_import/compute.cc, custom_calls.cc): each construct as
// the ComputeOp the compute model times, with hand calculations.
#include <gtest/gtest.h>

#include <cmath>

#include "hlo/analysis.h"
#include "hlo/parser.h"
#include "import_support.h"

namespace podsim::hlo_import::testing {
namespace {

// A module of one ENTRY computation on 4 devices.
std::string module4(const std::string& entry, const std::string& computations = "") {
  return "HloModule m, num_partitions=4\n\n" + computations + "\nENTRY %main {\n" + entry + "}\n";
}

class HloComputeTest : public ::testing::Test {
 protected:
  const topo::Pod pod{pod_2x2()};
};

TEST_F(HloComputeTest, DotIsTheMatmulOfItsDimensionNumbers) {
  const auto w = import_text(module4(R"(
  %a = bf16[4,128,256]{2,1,0} parameter(0)
  %b = s8[4,256,512]{2,1,0} parameter(1)
  ROOT %d = bf16[4,128,512]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
)"),
                             pod)
                     .workload;
  ASSERT_EQ(w.operations.size(), 1u);
  const auto& m = std::get<config::Matmul>(compute_of(w, "d"));
  EXPECT_EQ(m.batch, 4u);
  EXPECT_EQ(m.m, 128u);
  EXPECT_EQ(m.k, 256u);
  EXPECT_EQ(m.n, 512u);
  EXPECT_EQ(m.act, config::DType::kBf16);
  EXPECT_EQ(m.weight, config::DType::kInt8);
}

TEST_F(HloComputeTest, DotTimeByHand) {
  // bf16 [4,128,256] x [4,256,512]: FLOPs 2 x 4 x 128 x 256 x 512 =
  // 134,217,728; bytes 4 x 2 x (128x256 + 256x512 + 128x512) = 1,835,008.
  // At 1.97e14 FLOP/s: 0.681 us; at 819 GB/s: 2.2405 us. Memory-bound.
  const auto w = import_text(module4(R"(
  %a = bf16[4,128,256]{2,1,0} parameter(0)
  %b = bf16[4,256,512]{2,1,0} parameter(1)
  ROOT %d = bf16[4,128,512]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
)"),
                             pod)
                     .workload;
  const auto r = play(pod, w);
  const auto& d = result_of(r, "d");
  EXPECT_DOUBLE_EQ(d.compute->timing.flops, 134217728.0);
  EXPECT_EQ(d.compute->timing.bytes, 1835008u);
  EXPECT_NEAR(d.per_run.to_us(), 1835008.0 / 819e9 * 1e6, 1e-3);
  EXPECT_NEAR(d.per_run.to_us(), 2.2405, 1e-3);
  EXPECT_EQ(r.makespan, d.per_run);
}

TEST_F(HloComputeTest, ConvolutionIsTheMatmulOfTheSameFlops) {
  // 3x3 kernel, 4 -> 16 features, 8x8 output: 2 x 1024 x 4 x 9 = 73,728
  // FLOPs = 2 x m 64 x k 36 x n 16.
  const std::string text = module4(R"(
  %in = f32[1,8,8,4]{3,2,1,0} parameter(0)
  %k = f32[3,3,4,16]{3,2,1,0} parameter(1)
  ROOT %conv = f32[1,8,8,16]{3,2,1,0} convolution(%in, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
)");
  const auto w = import_text(text, pod).workload;
  const auto& m = std::get<config::Matmul>(compute_of(w, "conv"));
  EXPECT_EQ(m.m, 64u);
  EXPECT_EQ(m.n, 16u);
  EXPECT_EQ(m.k, 36u);
  EXPECT_EQ(m.act, config::DType::kFp32);
  const hlo::Module module = hlo::parse_module(text, "test.hlo");
  const hlo::Computation& entry = module.entry_computation();
  EXPECT_EQ(2 * m.batch * m.m * m.k * m.n,
            static_cast<uint64_t>(*hlo::convolution_flops(entry, entry.root_instruction())));
}

TEST_F(HloComputeTest, FusionWithADotIsItsMatmulAndAnEpilogue) {
  const auto w =
      import_text(
          module4(
              R"(
  %x = bf16[256,1024]{1,0} parameter(0)
  %w = bf16[1024,512]{1,0} parameter(1)
  %bias = bf16[512]{0} parameter(2)
  ROOT %proj = bf16[256,512]{1,0} fusion(%x, %w, %bias), kind=kOutput, calls=%fused
)",
              R"(%fused (q0: bf16[256,1024], q1: bf16[1024,512], q2: bf16[512]) -> bf16[256,512] {
  %q0 = bf16[256,1024]{1,0} parameter(0)
  %q1 = bf16[1024,512]{1,0} parameter(1)
  %q2 = bf16[512]{0} parameter(2)
  %d = bf16[256,512]{1,0} dot(%q0, %q1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %b = bf16[256,512]{1,0} broadcast(%q2), dimensions={1}
  ROOT %r = bf16[256,512]{1,0} add(%d, %b)
}
)"),
          pod)
          .workload;
  ASSERT_EQ(w.operations.size(), 2u);
  EXPECT_EQ((std::get<config::Matmul>(compute_of(w, "proj"))),
            (config::Matmul{.m = 256, .k = 1024, .n = 512}));
  // The epilogue: the bias (512 x 2 bytes) no dot reads, nothing written
  // beyond the dot's result, the add's 131,072 FLOPs over 131,072 outputs.
  const auto& e = std::get<config::Elementwise>(compute_of(w, "proj.epilogue"));
  EXPECT_EQ(e.elements, 256u * 512u);
  EXPECT_EQ(e.flops_per_element, 1u);
  EXPECT_EQ(e.bytes_in, 1024u);
  EXPECT_EQ(e.bytes_out, 0u);
  EXPECT_EQ(op(w, "proj.epilogue").after, std::vector<size_t>{index_of(w, "proj")});
}

TEST_F(HloComputeTest, FusionWithoutADotIsVectorWorkByHand) {
  // tanh(x*x) + x on bf16[256,1024]: 3 FLOPs per output, 512 KiB in and
  // out; 1 MiB / 819 GB/s = 1.2803 us.
  const auto w = import_text(module4(R"(
  %x = bf16[256,1024]{1,0} parameter(0)
  ROOT %gelu = bf16[256,1024]{1,0} fusion(%x), kind=kLoop, calls=%fused
)",
                                     R"(%fused (p0: bf16[256,1024]) -> bf16[256,1024] {
  %p0 = bf16[256,1024]{1,0} parameter(0)
  %m = bf16[256,1024]{1,0} multiply(%p0, %p0)
  %t = bf16[256,1024]{1,0} tanh(%m)
  ROOT %a = bf16[256,1024]{1,0} add(%t, %p0)
}
)"),
                             pod)
                     .workload;
  const auto& e = std::get<config::Elementwise>(compute_of(w, "gelu"));
  EXPECT_EQ(e, (config::Elementwise{262144, 3, 524288, 524288}));
  const auto r = play(pod, w);
  EXPECT_NEAR(result_of(r, "gelu").per_run.to_us(), 1048576.0 / 819e9 * 1e6, 1e-3);
}

TEST_F(HloComputeTest, PlainOpsByTheirBytes) {
  const auto w = import_text(module4(R"(
  %x = f32[64,1024]{1,0} parameter(0)
  %i = s32[] parameter(1)
  %zero = f32[] constant(0)
  %sum = f32[64]{0} reduce(%x, %zero), dimensions={1}, to_apply=%add
  %copy = f32[64,1024]{1,0} copy(%x)
  %ds = f32[8,1024]{1,0} dynamic-slice(%x, %i, %i), dynamic_slice_sizes={8,1024}
  %up = f32[64,1024]{1,0} dynamic-update-slice(%x, %ds, %i, %i)
  %t = f32[1024,64]{1,0} transpose(%x), dimensions={1,0}
  ROOT %e = f32[64,1024]{1,0} exponential(%up)
)",
                                     R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)"),
                             pod)
                     .workload;
  EXPECT_EQ(std::get<config::Reduction>(compute_of(w, "sum")),
            (config::Reduction{65536, 64, config::DType::kFp32}));
  EXPECT_EQ(std::get<config::Copy>(compute_of(w, "copy")).bytes, 262144u);
  // Only the slice is read (32 KiB), and two s32 indices.
  EXPECT_EQ(std::get<config::Elementwise>(compute_of(w, "ds")),
            (config::Elementwise{8192, 0, 32768 + 8, 32768}));
  // In place: the update read and written.
  EXPECT_EQ(std::get<config::Elementwise>(compute_of(w, "up")),
            (config::Elementwise{8192, 0, 32768 + 8, 32768}));
  EXPECT_EQ(std::get<config::Elementwise>(compute_of(w, "t")),
            (config::Elementwise{65536, 0, 262144, 262144}));
  EXPECT_EQ(std::get<config::Elementwise>(compute_of(w, "e")),
            (config::Elementwise{65536, 1, 262144, 262144}));
}

TEST_F(HloComputeTest, FreeInstructionsPassTheirDependenciesThrough) {
  const auto w = import_text(module4(R"(
  %x = bf16[128,128]{1,0} parameter(0)
  %a = bf16[128,128]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %k = bf16[] constant(1)
  %t = (bf16[128,128]{1,0}, bf16[]) tuple(%a, %k)
  %g = bf16[128,128]{1,0} get-tuple-element(%t), index=0
  %b = bf16[128,128]{1,0} bitcast(%g)
  %r = bf16[16384]{0} reshape(%b)
  %pid = u32[] partition-id()
  ROOT %n = bf16[16384]{0} negate(%r)
)"),
                             pod)
                     .workload;
  ASSERT_EQ(w.operations.size(), 2u);
  EXPECT_EQ(w.operations[0].name, "a");
  EXPECT_EQ(w.operations[1].name, "n");
  EXPECT_EQ(w.operations[1].after, std::vector<size_t>{0});
}

TEST_F(HloComputeTest, FusedAttentionTargetsAreAttention) {
  // Transformer Engine's layout, as in the LLaMA-3-8B module: q [b, s, h, d],
  // packed KV [b, s, 2, kv_heads, d]; mask_type 2 is causal.
  const auto w = import_text(module4(R"(
  %q = bf16[2,2048,32,128]{3,2,1,0} parameter(0)
  %kv = bf16[2,2048,2,8,128]{4,3,2,1,0} parameter(1)
  %fwd = bf16[2,2048,32,128]{3,2,1,0} custom-call(%q, %kv), custom_call_target="te_fused_attn_forward_ffi", backend_config={attn_heads = 32 : i64, mask_type = 2 : i64}
  %bwd = bf16[2,2048,32,128]{3,2,1,0} custom-call(%fwd, %kv), custom_call_target="te_fused_attn_backward_ffi", backend_config={mask_type = 0 : i64}
  %pq = bf16[4,16,512,64]{3,2,1,0} parameter(2)
  %pk = bf16[4,4,1024,64]{3,2,1,0} parameter(3)
  ROOT %pallas = bf16[4,16,512,64]{3,2,1,0} custom-call(%pq, %pk, %pk), custom_call_target="tpu_custom_call", backend_config="{\"custom_call_config\": {\"name\": \"flash_attention_fwd\", \"causal\": false}}"
)"),
                             pod)
                     .workload;
  auto fwd = std::get<config::Attention>(compute_of(w, "fwd"));
  EXPECT_EQ(fwd.batch, 2u);
  EXPECT_EQ(fwd.q_len, 2048u);
  EXPECT_EQ(fwd.kv_len, 2048u);
  EXPECT_EQ(fwd.heads, 32u);
  EXPECT_EQ(fwd.kv_heads, 8u);
  EXPECT_EQ(fwd.head_dim, 128u);
  EXPECT_TRUE(fwd.causal);
  EXPECT_EQ(fwd.phase, config::AttentionPhase::kPrefill);
  const auto bwd = std::get<config::Attention>(compute_of(w, "bwd"));
  EXPECT_FALSE(bwd.causal);
  EXPECT_EQ(bwd.head_dim, 320u);  // five matmuls against the forward's two
  const auto pallas = std::get<config::Attention>(compute_of(w, "pallas"));
  EXPECT_EQ(pallas.batch, 4u);
  EXPECT_EQ(pallas.heads, 16u);
  EXPECT_EQ(pallas.q_len, 512u);
  EXPECT_EQ(pallas.kv_heads, 4u);
  EXPECT_EQ(pallas.kv_len, 1024u);
  EXPECT_EQ(pallas.head_dim, 64u);
}

TEST_F(HloComputeTest, UnknownTargetsAreBytesWithOneWarningEach) {
  const auto imported = import_text(module4(R"(
  %x = f32[256]{0} parameter(0)
  %a = f32[256]{0} custom-call(%x), custom_call_target="my_kernel"
  %b = f32[256]{0} custom-call(%a), custom_call_target="my_kernel"
  %s = f32[256]{0} custom-call(%b), custom_call_target="Sharding"
  ROOT %c = f32[256]{0} custom-call(%s), custom_call_target="other_kernel"
)"),
                                    pod);
  ASSERT_EQ(imported.warnings.size(), 2u);
  EXPECT_NE(imported.warnings[0].find("'my_kernel'"), std::string::npos);
  EXPECT_NE(imported.warnings[0].find("line 7, column 3"), std::string::npos);
  EXPECT_NE(imported.warnings[1].find("'other_kernel'"), std::string::npos);
  const auto& w = imported.workload;
  ASSERT_EQ(w.operations.size(), 3u);  // Sharding is free
  EXPECT_EQ(std::get<config::Elementwise>(compute_of(w, "a")),
            (config::Elementwise{1, 0, 1024, 1024}));
}

TEST_F(HloComputeTest, OperationsBeyondTheLoadersLimitsAreRefused) {
  // 2^25 x 2^25 = 2^50 elements in one operand, beyond 2^48.
  const std::string error = import_error(module4(R"(
  %a = bf16[33554432,33554432]{1,0} parameter(0)
  ROOT %huge = bf16[33554432,33554432]{1,0} dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"),
                                         pod);
  EXPECT_NE(error.find("%huge"), std::string::npos) << error;
  EXPECT_NE(error.find("2^48"), std::string::npos) << error;
}

}  // namespace
}  // namespace podsim::hlo_import::testing
