// Padded attention heads (sharding.pad_heads): the head counts a
// weight-stationary layout computes when the model's own do not split over
// the chips that split heads (1D: the T tensor chips; 2D: the Y chips of the
// second tensor axis). PaLM-540B's 48 heads on 64-way tensor parallelism are
// the case in point.
//
// The rule keeps grouped-query attention's structure: every real KV head
// keeps its real query heads, and every KV head, real or padding, gets the
// same number of query heads (the attention operation needs equal groups).
// With H query heads over K KV heads (group g = H / K) split n ways:
//   K' = the fewest KV heads >= K that split evenly over n (K' % n == 0) or
//        replicate evenly across them (n % K' == 0), the two layouts the
//        lowering has for KV heads (src/workload/README.md);
//   H' = the least multiple of lcm(n, K') that is >= g K', so H' splits over
//        n and each of the K' groups has g' = H' / K' >= g query heads.
// Heads that already split give H' = H and K' = K: padding is then a no-op.
// Padding heads and KV heads are zero weights: they cost time, weights and
// KV cache, and no model FLOPs (workload/model_math.h counts the real model).
//
// Header-only: the loader (suggesting the field in its shape errors) and the
// lowering (computing the padded shapes) use the same rule.
#pragma once

#include <cstdint>
#include <numeric>

namespace podsim::config {

struct PaddedHeads {
  uint64_t heads = 0;     // H'
  uint64_t kv_heads = 0;  // K'

  friend bool operator==(const PaddedHeads&, const PaddedHeads&) = default;
};

// Whether `kv_heads` KV heads split evenly over `chips` or replicate evenly
// across them.
constexpr bool kv_heads_fit(uint64_t kv_heads, uint64_t chips) {
  return kv_heads % chips == 0 || chips % kv_heads == 0;
}

// The rule above. Needs heads, kv_heads and chips >= 1 and heads % kv_heads
// == 0. O(min(chips, K' - K)) to find K'.
constexpr PaddedHeads padded_heads(uint64_t heads, uint64_t kv_heads, uint64_t chips) {
  uint64_t kv = kv_heads;
  while (!kv_heads_fit(kv, chips))
    ++kv;
  const uint64_t unit = std::lcm(chips, kv);
  const uint64_t at_least = heads / kv_heads * kv;
  return PaddedHeads{(at_least + unit - 1) / unit * unit, kv};
}

}  // namespace podsim::config
