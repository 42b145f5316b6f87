// Element types of weights, activations and the KV cache.
#pragma once

namespace podsim::config {

enum class DType { kBf16, kFp32, kFp8, kInt8, kInt4 };

// Bytes per element; int4 packs two to a byte.
constexpr double bytes_per_element(DType t) {
  switch (t) {
    case DType::kFp32:
      return 4;
    case DType::kBf16:
      return 2;
    case DType::kFp8:
    case DType::kInt8:
      return 1;
    case DType::kInt4:
      return 0.5;
  }
  return 2;
}

}  // namespace podsim::config
