// Work of each operation (FLOPs, HBM bytes, VMEM), against numbers worked out
// by hand from the formulas in ops.h, and the MXU pass decomposition.
#include "chip/ops.h"

#include <gtest/gtest.h>

#include "chip/mxu_passes.h"

namespace podsim::chip {
namespace {

Attention attention(uint64_t batch, uint64_t q_len, uint64_t kv_len, uint64_t heads,
                    uint64_t kv_heads, uint64_t head_dim) {
  Attention a;
  a.batch = batch;
  a.q_len = q_len;
  a.kv_len = kv_len;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  return a;
}

TEST(Ops, BytesOfEachDtype) {
  EXPECT_EQ(bytes_of(10, DType::kFp32), 40u);
  EXPECT_EQ(bytes_of(10, DType::kBf16), 20u);
  EXPECT_EQ(bytes_of(10, DType::kFp8), 10u);
  EXPECT_EQ(bytes_of(10, DType::kInt8), 10u);
  EXPECT_EQ(bytes_of(10, DType::kInt4), 5u);
  EXPECT_EQ(bytes_of(3, DType::kInt4), 2u);  // rounded up to a whole byte
}

TEST(Ops, DecodeMatmulWork) {
  // 8 tokens through an 8192 x 8192 bf16 layer.
  const OpWork w = work(Matmul{1, 8, 8192, 8192});
  EXPECT_DOUBLE_EQ(w.mxu_flops, 1'073'741'824.0);  // 2 * 8 * 8192 * 8192
  EXPECT_DOUBLE_EQ(w.vector_flops, 0);
  EXPECT_EQ(w.hbm_read_bytes, 131'072u + 134'217'728u);  // activations + weights
  EXPECT_EQ(w.hbm_write_bytes, 131'072u);
  // Activations (128 KiB) resident, a double-buffered 8192 x 128 weight panel
  // (2 x 2 MiB) and an 8 x 128 fp32 accumulator panel (4 KiB).
  EXPECT_EQ(w.vmem_bytes, 131'072u + 4'194'304u + 4'096u);
  EXPECT_EQ(w.mxu_rate, Rate::kBf16);
}

TEST(Ops, PrefillMatmulKeepsTheWeightsResident) {
  // A = 16384 x 1024 bf16 (32 MiB) > W = 1024 x 1024 bf16 (2 MiB).
  const OpWork w = work(Matmul{1, 16384, 1024, 1024});
  // W + 2 x (128 x 1024 bf16 activation panel) + 128 x 1024 fp32 accumulator.
  EXPECT_EQ(w.vmem_bytes, 2'097'152u + 524'288u + 524'288u);
}

TEST(Ops, BatchResidencyAndQuantisation) {
  Matmul mm{4, 2, 3, 5};
  EXPECT_DOUBLE_EQ(work(mm).mxu_flops, 2.0 * 4 * 2 * 3 * 5);
  EXPECT_EQ(work(mm).hbm_read_bytes, 4u * (12 + 30));  // per item: 2x3 and 3x5 bf16
  EXPECT_EQ(work(mm).hbm_write_bytes, 4u * 20);        // 2x5 bf16
  mm.weights_resident = true;
  EXPECT_EQ(work(mm).hbm_read_bytes, 4u * 12);
  mm.weights_resident = false;
  mm.weight = DType::kInt4;  // 15 elements -> 8 bytes
  EXPECT_EQ(work(mm).hbm_read_bytes, 4u * (12 + 8));
}

TEST(Ops, WhichPeakAMatmulUses) {
  EXPECT_EQ(matmul_rate(DType::kBf16, DType::kBf16), Rate::kBf16);
  EXPECT_EQ(matmul_rate(DType::kInt8, DType::kInt8), Rate::kInt8);
  EXPECT_EQ(matmul_rate(DType::kInt8, DType::kInt4), Rate::kInt8);
  EXPECT_EQ(matmul_rate(DType::kFp8, DType::kFp8), Rate::kFp8);
  // Weight-only quantisation stays on the bf16 path.
  EXPECT_EQ(matmul_rate(DType::kBf16, DType::kInt8), Rate::kBf16);
  EXPECT_EQ(matmul_rate(DType::kBf16, DType::kInt4), Rate::kBf16);
  EXPECT_EQ(matmul_rate(DType::kBf16, DType::kFp8), Rate::kBf16);
  EXPECT_EQ(matmul_rate(DType::kFp32, DType::kFp32), Rate::kBf16);
  EXPECT_EQ(matmul_rate(DType::kFp8, DType::kInt8), Rate::kBf16);
}

TEST(Ops, AttentionPairsCountedByHand) {
  Attention a = attention(1, 4, 4, 1, 1, 1);
  EXPECT_EQ(attention_pairs(a), 10u);  // 1 + 2 + 3 + 4
  a.causal = false;
  EXPECT_EQ(attention_pairs(a), 16u);
  a = attention(1, 1, 100, 1, 1, 1);  // decode: the new token sees all 100
  EXPECT_EQ(attention_pairs(a), 100u);
  a = attention(1, 4, 100, 1, 1, 1);  // 4 speculative tokens see 97..100 keys
  EXPECT_EQ(attention_pairs(a), 97u + 98 + 99 + 100);
}

TEST(Ops, CausalPrefillAttentionWork) {
  // batch 2, 4 tokens, 8 heads over 2 KV heads, head_dim 128, bf16.
  const Attention a = attention(2, 4, 4, 8, 2, 128);
  const OpWork w = work(a);
  EXPECT_DOUBLE_EQ(w.mxu_flops, 4.0 * 2 * 8 * 10 * 128);  // 10 pairs
  EXPECT_DOUBLE_EQ(w.vector_flops, 5.0 * 2 * 8 * 10);
  const uint64_t q = 2 * 4 * 8 * 128 * 2;   // Q (and the output)
  const uint64_t kv = 2 * 4 * 2 * 128 * 2;  // K (and V)
  EXPECT_EQ(w.hbm_read_bytes, q + 2 * kv);
  EXPECT_EQ(w.hbm_write_bytes, q);
  EXPECT_EQ(w.mxu_rate, Rate::kBf16);
}

TEST(Ops, DecodeAttentionWorkAndFootprint) {
  Attention a = attention(1, 1, 4096, 32, 8, 128);
  a.phase = AttentionPhase::kDecode;
  const OpWork w = work(a);
  EXPECT_EQ(w.hbm_read_bytes, 32u * 128 * 2 + 2u * 4096 * 8 * 128 * 2);
  // g = 4 query rows, 128-key tiles: Q 4x128 bf16, K and V double-buffered
  // 128x128 bf16, 4x128 fp32 scores, 4x128 fp32 output, 4 x 8 bytes of stats.
  EXPECT_EQ(w.vmem_bytes, 1024u + 131'072u + 2048u + 2048u + 32u);
  a.kv = DType::kInt8;
  EXPECT_EQ(work(a).hbm_read_bytes, 32u * 128 * 2 + 2u * 4096 * 8 * 128);
}

TEST(Ops, VectorOpsWork) {
  const OpWork e = work(Elementwise{1000, 3, 2000, 4000});
  EXPECT_DOUBLE_EQ(e.vector_flops, 3000);
  EXPECT_EQ(e.hbm_read_bytes, 2000u);
  EXPECT_EQ(e.hbm_write_bytes, 4000u);
  EXPECT_EQ(e.vmem_bytes, 6000u);
  EXPECT_EQ(work(Elementwise{1u << 30, 1, 1ull << 31, 1ull << 31}).vmem_bytes, kStreamBufferBytes);

  const OpWork rms = work(Norm{NormKind::kRms, 4, 1024, DType::kBf16});
  EXPECT_DOUBLE_EQ(rms.vector_flops, 4.0 * 4096);
  EXPECT_EQ(rms.hbm_read_bytes, 8192u + 2048u);  // data + gamma
  EXPECT_EQ(rms.hbm_write_bytes, 8192u);
  const OpWork ln = work(Norm{NormKind::kLayer, 4, 1024, DType::kBf16});
  EXPECT_DOUBLE_EQ(ln.vector_flops, 7.0 * 4096);
  EXPECT_EQ(ln.hbm_read_bytes, 8192u + 4096u);  // data + gamma + beta

  const OpWork r = work(Reduction{1000, 10, DType::kFp32});
  EXPECT_DOUBLE_EQ(r.vector_flops, 1000);
  EXPECT_EQ(r.hbm_read_bytes, 4000u);
  EXPECT_EQ(r.hbm_write_bytes, 40u);

  const OpWork emb = work(Embedding{16, 4096, 256'000, DType::kBf16});
  EXPECT_DOUBLE_EQ(emb.flops(), 0);
  EXPECT_EQ(emb.hbm_read_bytes, 131'072u + 64u);  // rows + int32 ids
  EXPECT_EQ(emb.hbm_write_bytes, 131'072u);

  const OpWork c = work(Copy{1 << 20});
  EXPECT_EQ(c.hbm_bytes(), 2u << 20);
  EXPECT_EQ(c.vmem_bytes, 0u);
}

TEST(Ops, KindOfEachOp) {
  Attention decode = attention(1, 1, 8, 1, 1, 8);
  decode.phase = AttentionPhase::kDecode;
  EXPECT_EQ(kind_of(Matmul{1, 1, 1, 1}), OpKind::kMatmul);
  EXPECT_EQ(kind_of(attention(1, 1, 8, 1, 1, 8)), OpKind::kAttentionPrefill);
  EXPECT_EQ(kind_of(decode), OpKind::kAttentionDecode);
  EXPECT_EQ(kind_of(Norm{NormKind::kLayer, 1, 1, DType::kBf16}), OpKind::kLayerNorm);
  EXPECT_EQ(kind_of(Norm{NormKind::kRms, 1, 1, DType::kBf16}), OpKind::kRmsNorm);
  EXPECT_EQ(kind_of(Copy{1}), OpKind::kCopy);
}

TEST(MxuPasses, AttentionMapsToTwoWeightStationaryProducts) {
  // batch 2, 3 queries, 10 keys, 8 heads over 2 KV heads (g = 4), head_dim 64.
  Attention a = attention(2, 3, 10, 8, 2, 64);
  const MxuPasses p = mxu_passes(a);
  ASSERT_EQ(p.count, 2u);
  const MxuPass& scores = p.pass[0];
  const MxuPass& context = p.pass[1];
  EXPECT_EQ(scores.batch, 4u);  // batch x kv_heads
  EXPECT_EQ(scores.m, 12u);     // q_len x g
  EXPECT_EQ(scores.k, 64u);
  EXPECT_EQ(scores.n, 10u);
  EXPECT_EQ(context.k, 10u);
  EXPECT_EQ(context.n, 64u);
  // Causal: pairs = 3 * 7 + 6 = 27 of 30.
  EXPECT_DOUBLE_EQ(scores.useful_fraction, 27.0 / 30.0);
  EXPECT_DOUBLE_EQ(2 * (scores.useful_macs() + context.useful_macs()), work(a).mxu_flops);
  EXPECT_EQ(scores.hbm_bytes + context.hbm_bytes, work(a).hbm_bytes());

  EXPECT_EQ(mxu_passes(Matmul{1, 2, 3, 4}).count, 1u);
  EXPECT_EQ(mxu_passes(Copy{64}).count, 0u);
}

}  // namespace
}  // namespace podsim::chip
