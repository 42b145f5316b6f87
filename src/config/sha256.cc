#include "config/sha256.h"

#include "config/internal/sha256.h"

namespace podsim::config {

std::string sha256_hex(std::string_view bytes) {
  return internal::sha256_hex(bytes);
}

}  // namespace podsim::config
