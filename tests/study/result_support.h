// Shared by the study tests: shipped inputs loaded and evaluated quickly.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "config/topology_loader.h"
#include "config/workload_loader.h"
#include "study/evaluate.h"
#include "topo/pod.h"

namespace podsim::study::testing {

inline std::filesystem::path root() {
  const char* env = std::getenv("PODSIM_SOURCE_DIR");
  return env != nullptr ? std::filesystem::path(env) : std::filesystem::current_path();
}

// A shipped topology and workload, loaded.
struct Loaded {
  topo::Pod pod;
  config::WorkloadSpec workload;
};

inline Loaded load(const std::string& topology, const std::string& workload) {
  config::PodSpec spec = config::load_topology_file(root() / "topologies" / topology);
  config::WorkloadSpec w = config::load_workload_file(root() / "workloads" / workload, spec);
  return {topo::Pod(std::move(spec)), std::move(w)};
}

inline RunOptions analytical() {
  RunOptions o;
  o.network.model = net::Model::kAnalytical;
  return o;
}

}  // namespace podsim::study::testing
