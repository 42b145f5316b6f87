// SHA-256 of bytes, as hex: what specs record of their inputs, for the layers
// above config that record files of their own (calibrate's measurements).
#pragma once

#include <string>
#include <string_view>

namespace podsim::config {

// Lower-case hex digest, 64 characters. O(bytes).
std::string sha256_hex(std::string_view bytes);

}  // namespace podsim::config
