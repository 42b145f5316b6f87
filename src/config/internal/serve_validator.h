// The rules of a serve file (proto/podsim/serve.proto, docs/serving.md) and
// its conversion into config::ServeSpec. The replicas' topology and workload
// files and the trace are loaded by serve_loader.cc from the paths returned
// here. Internal to src/config.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/internal/issue_list.h"
#include "config/serve_spec.h"

namespace podsim {
class ServeConfig;
}  // namespace podsim

namespace podsim::config::internal {

std::vector<FieldIssue> validate_serve(const podsim::ServeConfig& serve,
                                       const std::filesystem::path& base_dir);

// The spec without its replicas' pods and workloads nor the trace's rows,
// and where to load them from.
struct ServeFiles {
  ServeSpec spec;
  std::vector<std::filesystem::path> topology;  // per replica
  std::vector<std::filesystem::path> workload;
  // Speculative decoding's draft, per replica (empty: none, or the replica's
  // own chips for the topology).
  std::vector<std::filesystem::path> draft_workload;
  std::vector<std::filesystem::path> draft_topology;
  double trace_speedup = 1;
  std::filesystem::path kv_ici_topology;  // empty: the caches move over DCN
};

ServeFiles to_serve_spec(const podsim::ServeConfig& serve, const std::filesystem::path& base_dir,
                         std::string source_file);

}  // namespace podsim::config::internal
