// The text of workloads/llama3-70b-decode-v5e.textproto, compiled in. The
// definition is generated at build time by embed_text.cmake (see
// src/config/CMakeLists.txt).
#pragma once

#include <string_view>

namespace podsim::config::internal {

std::string_view embedded_default_workload_text();

}  // namespace podsim::config::internal
