// SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the content hash
// PodSpec::source_sha256 and WorkloadSpec::source_sha256 record, so a result
// names exactly which input bytes produced it.
//
// Internal to src/config. O(n) time, O(1) memory beyond the input.
#pragma once

#include <string>
#include <string_view>

namespace podsim::config::internal {

// 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace podsim::config::internal
