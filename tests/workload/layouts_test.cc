// The layouts of Pope et al., "Efficiently Scaling Transformer Inference"
// (MLSys 2023), section 3.2 and appendix A.2: the per-chip communication of
// one feed-forward layer as the lowering emits it, against the paper's
// formulas with the exact ring factors f(k) = (k - 1) / k the paper rounds
// to 1; and the attention layouts that go with them (by heads, by batch, by
// heads over X and Y for a batch too small for X).
//
// Notation as in the paper and src/workload/README.md: B sequences of L
// tokens, model width E, FFN width F (g = 2 for the gated up and gate
// matrices), T tensor chips; 2D: E over X, heads and F over Y (the rest);
// weight-gathered: gathered over G, stationary over R = T / G.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workload_fixture.h"

namespace podsim::workload {
namespace {

constexpr double kBf16 = 2;  // bytes

double f(double k) {
  return (k - 1) / k;
}

config::ShardingSpec tensor(std::vector<std::string> axes) {
  config::ShardingSpec s;
  s.tensor_axes = std::move(axes);
  return s;
}

config::ShardingSpec gathered(std::vector<std::string> axes, std::vector<std::string> over) {
  config::ShardingSpec s = tensor(std::move(axes));
  s.weight_gathered = true;
  s.weight_gathered_axes = std::move(over);
  return s;
}

// Per-chip ring bytes of layer 3's collectives whose names hold `part`
// (".ffn." or ".attn."), leaving out the norms' few-byte statistics.
double layer_wire_bytes(const Program& p, const MeshAxes& mesh, const std::string& part) {
  StageProgram picked;
  for (const Instruction& ins : p.stages[0].instructions) {
    if (ins.layer == 3 && ins.name.find(part) != std::string::npos &&
        ins.name.find(".norm.") == std::string::npos &&
        std::holds_alternative<config::CollectiveSpec>(ins.body))
      picked.instructions.push_back(ins);
  }
  return testing::wire_bytes_per_chip(picked, mesh);
}

struct Shape {
  const char* name;
  std::vector<std::pair<std::string, uint32_t>> axes;
  bool prefill;
};

config::ServingSpec step(const Shape& s, const config::ModelSpec& m, uint32_t batch,
                         config::ShardingSpec sharding) {
  return s.prefill ? testing::prefill(m, batch, 128, std::move(sharding))
                   : testing::decode(m, batch, 1024, std::move(sharding));
}

double tokens(const Shape& s, uint32_t batch) {
  return batch * (s.prefill ? 128.0 : 1.0);
}

std::vector<std::string> names(const Shape& s) {
  std::vector<std::string> out;
  for (const auto& [name, size] : s.axes)
    out.push_back(name);
  return out;
}

// 1D weight-stationary (A.2.1): one all-reduce of the BLE activations per
// matrix pair, 2 BLE f(T) per chip, whatever F.
TEST(PopeLayouts, OneDFeedForwardAllReducesTheActivations) {
  const config::ModelSpec m = testing::llama3_70b();
  for (const Shape& s : {Shape{"8", {{"x", 8}}, false}, Shape{"16 prefill", {{"x", 16}}, true}}) {
    const MeshAxes mesh = testing::mesh(s.axes);
    const double t = mesh.sizes[0];
    const uint32_t batch = 16;
    const Program p = lower(step(s, m, batch, tensor(names(s))), mesh);
    const double ble = tokens(s, batch) * m.d_model * kBf16;
    EXPECT_DOUBLE_EQ(layer_wire_bytes(p, mesh, ".ffn."), 2 * ble * f(t)) << s.name;
    EXPECT_DOUBLE_EQ(layer_wire_bytes(p, mesh, ".attn."), 2 * ble * f(t)) << s.name;
    EXPECT_EQ(p.attention_layout, "by-heads");
  }
}

// 2D weight-stationary (A.2.2): E over X and F over Y; the input gathered
// over Y and the output scattered over it (BLE / X each), the hidden
// activations scattered and gathered over X (g BLF / Y and BLF / Y):
// 2 BLE / X f(Y) + (g + 1) BLF / Y f(X).
TEST(PopeLayouts, TwoDFeedForwardMatchesTheAppendix) {
  const config::ModelSpec m = testing::llama3_70b();  // gated
  const double g = 2;
  for (const Shape& s :
       {Shape{"4x4", {{"x", 4}, {"y", 4}}, false}, Shape{"2x8", {{"x", 2}, {"y", 8}}, false},
        Shape{"8x2 prefill", {{"x", 8}, {"y", 2}}, true},
        Shape{"2x4x4 (X + YZ)", {{"x", 2}, {"y", 4}, {"z", 4}}, false},
        Shape{"4x4x4 prefill", {{"x", 4}, {"y", 4}, {"z", 4}}, true}}) {
    const MeshAxes mesh = testing::mesh(s.axes);
    const double x = mesh.sizes[0];
    const double y = static_cast<double>(mesh.product(names(s))) / x;
    const uint32_t batch = 16;
    const Program p = lower(step(s, m, batch, tensor(names(s))), mesh);
    const double bl = tokens(s, batch) * kBf16;
    const double expected = 2 * bl * m.d_model / x * f(y) + (g + 1) * bl * m.ffn_dim / y * f(x);
    EXPECT_NEAR(layer_wire_bytes(p, mesh, ".ffn."), expected, 1e-9 * expected) << s.name;
    EXPECT_EQ(p.attention_layout, "by-heads") << s.name;
  }
}

// The 2D layout's volume falls as the chips grow where 1D's does not: at
// equal chips, 2D moves less than 1D once F / E and T are large enough
// (the paper's figure 2 crossover).
TEST(PopeLayouts, TwoDMovesLessThanOneDOnManyChips) {
  const config::ModelSpec m = testing::llama3_70b();
  const MeshAxes one = testing::mesh({{"x", 64}});
  const MeshAxes two = testing::mesh({{"x", 8}, {"y", 8}});
  const double v1 =
      layer_wire_bytes(lower(testing::decode(m, 64, 1024, tensor({"x"})), one), one, ".ffn.");
  const double v2 =
      layer_wire_bytes(lower(testing::decode(m, 64, 1024, tensor({"x", "y"})), two), two, ".ffn.");
  EXPECT_LT(v2, v1);
}

// Weight-gathered (A.2.3) over G of the T tensor chips: each matrix's
// stationary shard (1 / R) gathered over G, (g + 1) EF / R f(G) weight
// bytes; the activations, B / G sequences on each chip, all-reduced over
// the R stationary chips, 2 (B / G) LE f(R). XYZ (G = T) moves weights
// only; X and XY move both.
TEST(PopeLayouts, WeightGatheredOverXXyAndXyz) {
  const config::ModelSpec m = testing::llama3_70b();
  const double g = 2;
  const Shape s{"4x4x4 prefill", {{"x", 4}, {"y", 4}, {"z", 4}}, true};
  const MeshAxes mesh = testing::mesh(s.axes);
  const uint32_t batch = 64;
  for (const std::vector<std::string>& over :
       std::vector<std::vector<std::string>>{{"x"}, {"x", "y"}, {"x", "y", "z"}}) {
    const Program p = lower(step(s, m, batch, gathered(names(s), over)), mesh);
    const double gc = static_cast<double>(mesh.product(over));
    const double r = 64 / gc;
    const double weights = (g + 1) * m.d_model * m.ffn_dim / r * kBf16 * f(gc);
    const double acts = 2 * (batch / gc) * tokens(s, 1) * m.d_model * kBf16 * f(r);
    const double expected = weights + acts;
    EXPECT_NEAR(layer_wire_bytes(p, mesh, ".ffn."), expected, 1e-9 * expected) << over.size();
  }
}

// Bytes of layer 3's weight all-gathers whose names hold `part`: the
// buffers the gathered weights land in.
uint64_t gathered_buffer_bytes(const Program& p, const std::string& part) {
  uint64_t total = 0;
  for (const Instruction& ins : p.stages[0].instructions) {
    if (ins.layer == 3 && ins.name.find(part) != std::string::npos &&
        ins.name.ends_with(".gather_weights"))
      total += testing::collective(ins).bytes;
  }
  return total;
}

// Whatever the variant, a chip stores 1 / T of each matrix; what it gathers
// per matrix is 1 / R of it. (With 16 KV heads, so that they split over
// R = 16; LLaMA's 8 would be replicated over pairs of stationary chips,
// which then store twice the KV projection.)
TEST(PopeLayouts, PartialGatherStoresOneOverTAndBuffersOneOverR) {
  config::ModelSpec m = testing::llama3_70b();
  m.kv_heads = 16;
  const MeshAxes mesh = testing::mesh({{"x", 4}, {"y", 4}, {"z", 4}});
  const Program x = lower(testing::prefill(m, 64, 128, gathered({"x", "y", "z"}, {"x"})), mesh);
  const Program xy =
      lower(testing::prefill(m, 64, 128, gathered({"x", "y", "z"}, {"x", "y"})), mesh);
  const Program xyz =
      lower(testing::prefill(m, 64, 128, gathered({"x", "y", "z"}, {"x", "y", "z"})), mesh);
  const auto stored = [](const Program& p) {
    return p.memory_per_chip.weight_bytes - gathered_buffer_bytes(p, ".");
  };
  EXPECT_EQ(stored(x), stored(xyz));
  EXPECT_EQ(stored(xy), stored(xyz));
  const uint64_t ffn = 3ULL * m.d_model * m.ffn_dim * 2;  // up, gate, down; bf16
  EXPECT_EQ(gathered_buffer_bytes(xyz, ".ffn."), ffn);
  EXPECT_EQ(gathered_buffer_bytes(xy, ".ffn."), ffn / 4);
  EXPECT_EQ(gathered_buffer_bytes(x, ".ffn."), ffn / 16);
  const auto up = testing::named(x.stages[0], "L3.ffn.up_gate.gather_weights");
  ASSERT_EQ(up.size(), 1U);
  EXPECT_EQ(testing::collective(*up[0]).axes, (std::vector<std::string>{"x"}));
  // The up matmul of X-gathered runs each chip's 64 / 4 sequences on F / 16
  // columns; XYZ-gathered runs 1 sequence on all of F.
  const auto mm_x = testing::named(x.stages[0], "L3.ffn.up_gate");
  const auto mm_xyz = testing::named(xyz.stages[0], "L3.ffn.up_gate");
  ASSERT_EQ(mm_x.size(), 1U);
  ASSERT_EQ(mm_xyz.size(), 1U);
  EXPECT_EQ(testing::matmul(*mm_x[0]).m, 16U * 128);
  EXPECT_EQ(testing::matmul(*mm_x[0]).n, 2U * m.ffn_dim / 16);
  EXPECT_EQ(testing::matmul(*mm_xyz[0]).m, 128U);
  EXPECT_EQ(testing::matmul(*mm_xyz[0]).n, 2U * m.ffn_dim);
}

// Batch 1 prefill on a 2D layout: the sequence cannot split over X, so
// attention splits heads over X and Y (64 heads over 16 chips, 4 each) and
// each KV head is held by two chips; the KV projection's partial sums are
// all-reduced over X, the queries reduce-scattered by head.
TEST(PopeLayouts, TwoDBatchOnePrefillSplitsHeadsOverXAndY) {
  const config::ModelSpec m = testing::llama3_70b();  // 64 heads, 8 KV heads of 128
  const MeshAxes mesh = testing::mesh({{"x", 4}, {"y", 4}});
  const Program p = lower(testing::prefill(m, 1, 2048, tensor({"x", "y"})), mesh);
  EXPECT_EQ(p.attention_layout, "by-heads over x and y");
  const auto att = testing::named(p.stages[0], "L3.attn.core");
  ASSERT_EQ(att.size(), 1U);
  EXPECT_EQ(testing::attention(*att[0]).heads, 4U);
  EXPECT_EQ(testing::attention(*att[0]).kv_heads, 1U);
  EXPECT_EQ(testing::attention(*att[0]).batch, 1U);
  EXPECT_EQ(testing::named(p.stages[0], "L3.attn.kv.allreduce_x").size(), 1U);
  EXPECT_EQ(testing::named(p.stages[0], "L3.attn.q.scatter_x").size(), 1U);
  // One KV head of 2048 tokens per chip per layer: K and V, bf16.
  EXPECT_EQ(p.memory_per_chip.kv_cache_bytes, 80ULL * 2048 * 2 * 128 * 2);
  // With 4 sequences it splits them over X instead (heads over Y only).
  const Program four = lower(testing::prefill(m, 4, 2048, tensor({"x", "y"})), mesh);
  EXPECT_EQ(four.attention_layout, "by-heads");
  EXPECT_EQ(testing::attention(*testing::named(four.stages[0], "L3.attn.core")[0]).heads, 16U);
  EXPECT_EQ(four.memory_per_chip.kv_cache_bytes, 80ULL * 2048 * 2 * 2 * 128 * 2);
}

// Multi-query attention (one KV head) takes the batch layout, as in the
// paper (3.3): the cache splits by sequence over the chips that would
// otherwise all hold the one KV head, in 1D and in 2D.
TEST(PopeLayouts, MultiQueryByBatchSplitsTheCacheOverEveryTensorChip) {
  config::ModelSpec m = testing::llama3_70b();
  m.kv_heads = 1;
  const uint64_t full = 80ULL * 16 * 1025 * 2 * 128 * 2;  // 16 sequences of 1024 + 1
  for (const Shape& s :
       {Shape{"8", {{"x", 8}}, false}, Shape{"4x4", {{"x", 4}, {"y", 4}}, false}}) {
    const MeshAxes mesh = testing::mesh(s.axes);
    const uint64_t t = mesh.product(names(s));
    config::ShardingSpec heads = tensor(names(s));
    config::ShardingSpec batch = heads;
    batch.kv_layout = config::KvLayout::kByBatch;
    const Program by_heads = lower(step(s, m, 16, heads), mesh);
    const Program by_batch = lower(step(s, m, 16, batch), mesh);
    // By heads the one KV head is on every chip: 1D holds the whole cache,
    // 2D splits its sequences over X.
    const uint64_t x = mesh.sizes[0];
    EXPECT_EQ(by_heads.memory_per_chip.kv_cache_bytes, s.axes.size() == 1 ? full : full / x)
        << s.name;
    EXPECT_EQ(by_batch.memory_per_chip.kv_cache_bytes, full / t) << s.name;
    EXPECT_EQ(by_batch.attention_layout, "by-batch") << s.name;
    const auto att = testing::named(by_batch.stages[0], "L3.attn.core");
    ASSERT_EQ(att.size(), 1U);
    EXPECT_EQ(testing::attention(*att[0]).batch, 16 / t) << s.name;
    EXPECT_EQ(testing::attention(*att[0]).heads, 64U) << s.name;
  }
}

}  // namespace
}  // namespace podsim::workload
