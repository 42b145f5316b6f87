// The text of topologies/v5e-16x16.textproto, compiled in. The definition is
// generated at build time by embed_text.cmake (see src/config/CMakeLists.txt).
#pragma once

#include <string_view>

namespace podsim::config::internal {

std::string_view embedded_default_topology_text();

}  // namespace podsim::config::internal
