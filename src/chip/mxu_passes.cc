#include "chip/mxu_passes.h"

#include <cassert>

namespace podsim::chip {
namespace {

MxuPasses passes_of(const Matmul& mm) {
  MxuPasses out;
  MxuPass& p = out.pass[out.count++];
  p.batch = mm.batch;
  p.m = mm.m;
  p.k = mm.k;
  p.n = mm.n;
  p.hbm_bytes = work(mm).hbm_bytes();
  p.rate = matmul_rate(mm.act, mm.weight);
  return out;
}

MxuPasses passes_of(const Attention& at) {
  assert(at.kv_heads >= 1 && at.heads % at.kv_heads == 0);
  const uint64_t dv = at.value_dim();
  const uint64_t q_bytes = bytes_of(at.batch * at.q_len * at.heads * at.head_dim, at.act);
  const uint64_t out_bytes = bytes_of(at.batch * at.q_len * at.heads * dv, at.act);
  const uint64_t k_bytes = bytes_of(at.batch * at.kv_len * at.kv_heads * at.head_dim, at.kv);
  const uint64_t v_bytes =
      at.values_in_keys ? 0 : bytes_of(at.batch * at.kv_len * at.kv_heads * dv, at.kv);
  MxuPass base;
  base.batch = at.batch * at.kv_heads;
  base.m = at.q_len * (at.heads / at.kv_heads);
  base.useful_fraction = static_cast<double>(attention_pairs(at)) /
                         (static_cast<double>(at.q_len) * static_cast<double>(at.kv_len));
  base.rate = matmul_rate(at.act, at.kv);

  MxuPasses out;
  MxuPass& scores = out.pass[out.count++];
  scores = base;
  scores.k = at.head_dim;
  scores.n = at.kv_len;
  scores.hbm_bytes = q_bytes + k_bytes;  // Q and K
  MxuPass& context = out.pass[out.count++];
  context = base;
  context.k = at.kv_len;
  context.n = dv;
  context.hbm_bytes = v_bytes + out_bytes;  // V (none when it is in K), and the output
  return out;
}

template <typename T>
MxuPasses passes_of(const T&) {
  return {};
}

}  // namespace

MxuPasses mxu_passes(const Op& op) {
  return std::visit([](const auto& o) { return passes_of(o); }, op);
}

}  // namespace podsim::chip
