// custom-call by its target: fused attention kernels as attention, a few
// structural targets free, anything else vector work by its bytes with one
// warning per target (docs/hlo.md, "Running a module").
#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hlo_import/internal.h"

namespace podsim::hlo_import::internal {

std::vector<CostedOp> custom_call_ops(const hlo::Module& module, const hlo::Computation& c,
                                      const hlo::Instruction& call, Warnings& warnings);

namespace {

// Targets that move no data on a TPU: sharding annotations and buffers.
constexpr std::array<std::string_view, 5> kFreeTargets = {"Sharding", "SPMDFullToShardShape",
                                                          "SPMDShardToFullShape", "AllocateBuffer",
                                                          "LayoutConstraint"};

// Transformer Engine's fused attention (the LLaMA-3-8B module's):
// q [batch, q_len, heads, head_dim], then either packed KV [batch, kv_len,
// 2, kv_heads, head_dim] or K [batch, kv_len, kv_heads, head_dim] (and V).
constexpr std::array<std::string_view, 2> kTeForward = {"te_fused_attn_forward_ffi",
                                                        "te_fused_attn_forward"};
constexpr std::array<std::string_view, 2> kTeBackward = {"te_fused_attn_backward_ffi",
                                                         "te_fused_attn_backward"};

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool contains_ci(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         }) != text.end();
}

// TE's `mask_type = N` in the backend config: 2 to 5 are the causal masks
// (NVTE_Mask_Type: CAUSAL, PADDING_CAUSAL and their bottom-right forms).
bool te_causal(std::string_view config) {
  const size_t at = config.find("mask_type");
  if (at == std::string_view::npos) {
    return false;
  }
  size_t i = at + 9;
  while (i < config.size() && (config[i] == ' ' || config[i] == '=' || config[i] == ':')) {
    ++i;
  }
  return i < config.size() && config[i] >= '2' && config[i] <= '5';
}

std::vector<CostedOp> attention(const hlo::Module& module, const hlo::Computation& c,
                                const hlo::Instruction& call, bool heads_second, bool backward) {
  const auto bad = [&]() {
    fail(module, call,
         "the attention kernel's operands do not have the shapes podsim reads (docs/hlo.md, "
         "\"Running a module\", custom-call)");
  };
  if (call.operands.size() < 2) {
    bad();
  }
  const hlo::Shape& q = c.operand(call, 0).shape;
  const hlo::Shape& k = c.operand(call, 1).shape;
  if (!q.is_array() || !k.is_array() || q.rank() != 4 || (k.rank() != 4 && k.rank() != 5) ||
      q.has_unbounded_dims() || k.has_unbounded_dims()) {
    bad();
  }
  config::Attention a;
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  a.batch = u(q.dims[0]);
  if (heads_second) {  // Pallas: [batch, heads, seq, head_dim]
    a.heads = u(q.dims[1]);
    a.q_len = u(q.dims[2]);
    a.kv_heads = u(k.dims[1]);
    a.kv_len = u(k.dims[2]);
  } else {  // TE: [batch, seq, heads, head_dim], packed KV [batch, seq, 2, kv_heads, d]
    a.q_len = u(q.dims[1]);
    a.heads = u(q.dims[2]);
    a.kv_len = u(k.dims[1]);
    a.kv_heads = u(k.rank() == 5 ? k.dims[3] : k.dims[2]);
  }
  a.head_dim = u(q.dims[3]);
  a.act = dtype_of(q.type);
  a.kv = dtype_of(k.type);
  a.phase = a.q_len <= 1 ? config::AttentionPhase::kDecode : config::AttentionPhase::kPrefill;
  a.causal =
      heads_second ? contains_ci(call.backend_config, "causal") : te_causal(call.backend_config);
  if (a.batch == 0 || a.q_len == 0 || a.kv_len == 0 || a.heads == 0 || a.head_dim == 0) {
    return {};
  }
  if (a.kv_heads == 0 || a.heads % a.kv_heads != 0 || (a.causal && a.q_len > a.kv_len)) {
    bad();
  }
  if (backward) {
    // Flash attention's backward runs five matmuls of the forward's size
    // (S = QK^T again, dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q)
    // against its two: an attention 2.5 times as wide.
    a.head_dim = a.head_dim * 5 / 2;
  }
  return {CostedOp{"", a}};
}

}  // namespace

std::vector<CostedOp> custom_call_ops(const hlo::Module& module, const hlo::Computation& c,
                                      const hlo::Instruction& call, Warnings& warnings) {
  const std::string_view target = call.extra ? call.extra->custom_call_target : "";
  if (one_of(target, kFreeTargets)) {
    return {};
  }
  if (one_of(target, kTeForward) || one_of(target, kTeBackward)) {
    return attention(module, c, call, false, one_of(target, kTeBackward));
  }
  if (target == "tpu_custom_call" && contains_ci(call.backend_config, "flash_attention")) {
    return attention(module, c, call, true, contains_ci(call.backend_config, "bwd"));
  }
  uint64_t in = 0;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    in += static_cast<uint64_t>(hlo::byte_size(c.operand(call, i).shape).value_or(0));
  }
  const uint64_t out = static_cast<uint64_t>(hlo::byte_size(call.shape).value_or(0));
  std::string w = "custom-call target '";
  w += target;
  w += "' (first at ";
  w += describe(module, call);
  w += ") is not in podsim's table: costed as vector work moving its operands and result (";
  w += std::to_string(in + out);
  w += " bytes), no FLOPs";
  warnings.add("target " + std::string(target), w);
  if (in + out == 0) {
    return {};
  }
  config::Elementwise e;
  e.elements = 1;
  e.flops_per_element = 0;
  e.bytes_in = in;
  e.bytes_out = out;
  return {CostedOp{"", e}};
}

namespace {

// Whether the product of `factors` is within `limit` (no overflow).
bool within(std::initializer_list<uint64_t> factors, uint64_t limit) {
  uint64_t p = 1;
  for (const uint64_t f : factors) {
    if (__builtin_mul_overflow(p, f, &p)) {
      return false;
    }
  }
  return p <= limit;
}

struct LimitCheck {
  bool operator()(const config::Matmul& m) const {
    return within({m.batch, m.m, m.k}, kMaxOperandElements) &&
           within({m.batch, m.k, m.n}, kMaxOperandElements) &&
           within({m.batch, m.m, m.n}, kMaxOperandElements);
  }
  bool operator()(const config::Attention& a) const {
    return within({a.batch, a.q_len, a.heads, a.head_dim}, kMaxOperandElements) &&
           within({a.batch, a.kv_len, a.kv_heads, a.head_dim}, kMaxOperandElements) &&
           within({a.batch, a.heads, a.q_len, a.kv_len}, kMaxOperandElements);
  }
  bool operator()(const config::Elementwise& e) const {
    return e.elements <= kMaxOperandElements && e.bytes_in <= kMaxOperationBytes &&
           e.bytes_out <= kMaxOperationBytes;
  }
  bool operator()(const config::Norm& n) const {
    return within({n.rows, n.width}, kMaxOperandElements);
  }
  bool operator()(const config::Reduction& r) const { return r.elements <= kMaxOperandElements; }
  bool operator()(const config::Embedding& e) const {
    return within({e.tokens, e.width}, kMaxOperandElements);
  }
  bool operator()(const config::Copy& c) const { return c.bytes <= kMaxOperationBytes; }
};

}  // namespace

void check_limits(const hlo::Module& module, const hlo::Instruction& at,
                  const std::variant<config::CollectiveSpec, config::ComputeOp>& op) {
  const auto* c = std::get_if<config::CollectiveSpec>(&op);
  const bool ok = c != nullptr ? c->bytes <= kMaxOperationBytes
                               : std::visit(LimitCheck{}, std::get<config::ComputeOp>(op));
  if (!ok) {
    fail(module, at,
         "its shapes make an operation beyond podsim's limits (2^48 elements per operand, "
         "2^56 bytes; docs/inputs.md, \"Limits\")");
  }
}

}  // namespace podsim::hlo_import::internal
